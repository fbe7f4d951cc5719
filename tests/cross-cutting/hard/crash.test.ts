import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { isAlive, waitFor } from './support/cleanup.js';
import { checkAfterCrash, verifyAllChains, withClient, type CrashFigures } from './support/crash-checks.js';
import { driveLoad, Ledger, postBatch, postEntry, type CrashWorld } from './support/crash-load.js';
import { buildCrashWorld } from './support/crash-world.js';
import { startOwnPostgres, type OwnPostgres } from './support/postgres.js';
import { seededRng } from './support/rng.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';

/**
 * Crash tests (issue 10): the real server as a child process on a durable PostgreSQL of its own,
 * under concurrent entry creates (Idempotency-Key) and ingest batches. The server, then the
 * database, is SIGKILLed mid-load; after recovery every acknowledged write must be there, no write
 * may be half there, and retrying the unacknowledged ones must create each exactly once.
 */
const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 3);
const LOAD = { entryWorkers: 5, ingestWorkers: 1, batchSize: 10 };
const rng = seededRng('crash');

let pg: OwnPostgres;
let server: ServerProcess;
let w: CrashWorld;
const dbUrl = () => pg.url('crash');
const ledgers: Ledger[] = [];
const figures: Record<string, unknown>[] = [];

beforeAll(async () => {
  pg = await startOwnPostgres('crash');
  server = await startServerProcess(dbUrl());
  w = await buildCrashWorld(server.baseUrl);
}, 180_000);

const status = async (path: string) => {
  try {
    return (await fetch(new URL(path, server.baseUrl))).status;
  } catch {
    return 0;
  }
};

/** Load is running: a few writes of each kind have been acknowledged in this round. */
const loadIsFlowing = (ledger: Ledger, since = { entries: 0, items: 0 }) =>
  waitFor(
    'acknowledged writes',
    () =>
      ledger.ackedEntries().length >= since.entries + 5 && ledger.ackedItems().length >= since.items + LOAD.batchSize ? true : undefined,
    60_000,
  );

async function expectConsistent(label: string): Promise<CrashFigures> {
  const { problems, figures: f } = await checkAfterCrash(dbUrl(), w, ledgers);
  expect(problems, `${label}: ${problems.slice(0, 20).join('\n')}`).toEqual([]);
  expect(f.ackedEntriesFound).toBe(f.ackedEntries);
  expect(f.ackedItemsFound).toBe(f.ackedItems);
  return f;
}

/**
 * Sends every unacknowledged write again, as a client would after the outage: same key, same body.
 * An entry create whose work committed just before the crash cannot be replayed (its response was
 * never stored): the key answers 409 and the entry must already be there, once.
 */
async function retryUnacknowledged(ledger: Ledger): Promise<{ entries: number; batches: number; lostResponses: number; replayed: number }> {
  const entries = ledger.unackedEntries();
  const batches = ledger.unackedBatches();
  let lostResponses = 0;
  let replayed = 0;
  const existing = await withClient(dbUrl(), async (c) => {
    const { rows } = await c.query<{ id: string; reference: string }>(
      'SELECT id, reference FROM entries WHERE workspace_id = $1 AND reference = ANY($2::text[])',
      [w.workspaceId, entries.map((e) => e.key)],
    );
    return new Map(rows.map((r) => [r.reference, Number(r.id)]));
  });
  await inParallel(entries, async (e) => {
    const res = await postEntry(w, e);
    if (res.status === 409 && existing.has(e.key)) {
      expect(res.body.message).toMatch(/response was lost/);
      lostResponses++;
      e.ackId = existing.get(e.key);
      return;
    }
    expect(res.status, `retry of ${e.key}: ${res.text}`).toBe(200);
    expect(res.body.reference).toBe(e.key);
    if (res.headers.get('idempotency-replayed') === 'true') {
      // stored, then killed before the answer left: the stored answer names the entry there is
      expect(res.body.id).toBe(existing.get(e.key));
      replayed++;
    } else {
      expect(existing.has(e.key), `${e.key} existed already, yet ran again`).toBe(false);
    }
    e.ackId = res.body.id;
  });
  await inParallel(batches, async (b) => {
    const res = await postBatch(w, b);
    expect(res.status, `retry of batch ${b.key}: ${res.text}`).toBe(200);
    expect(res.body.failed).toBe(0);
    for (const r of res.body.results) expect(['CREATED', 'DUPLICATE']).toContain(r.status);
    b.ack = res.body.results;
  });
  return { entries: entries.length, batches: batches.length, lostResponses, replayed };
}

async function inParallel<T>(items: T[], work: (item: T) => Promise<void>, width = 6): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** After the retries, everything ever sent exists exactly once. */
async function expectEverythingOnce(label: string) {
  const f = await expectConsistent(label);
  const sentEntries = ledgers.reduce((s, l) => s + l.entries.length, 0);
  const sentItems = ledgers.reduce((s, l) => s + l.batches.length * LOAD.batchSize, 0);
  expect(f.entriesInDb).toBe(sentEntries + sentItems);
  return f;
}

/**
 * Ends a round: what this round acknowledged, then every unacknowledged write sent again, then
 * everything ever sent must exist exactly once; the round's figures are kept for the report.
 */
async function retryAndRecord(
  crash: string,
  ledger: Ledger,
  after: Awaited<ReturnType<typeof expectConsistent>>,
  started: number,
  outage: Record<string, unknown> = {},
): Promise<void> {
  const thisRound = { ackedEntriesThisRound: ledger.ackedEntries().length, ackedItemsThisRound: ledger.ackedItems().length };
  const retried = await retryUnacknowledged(ledger);
  const final = await expectEverythingOnce(`${crash} after retries`);
  figures.push({
    crash,
    sentEntries: ledger.entries.length,
    sentBatches: ledger.batches.length,
    ...outage,
    ...thisRound,
    cumulative: after,
    retriedEntries: retried.entries,
    retriedBatches: retried.batches,
    lostResponsesOnRetry: retried.lostResponses,
    replayedOnRetry: retried.replayed,
    entriesInDbAfterRetry: final.entriesInDb,
    ms: Date.now() - started,
  });
}

describe('crash: the server is SIGKILLed mid-load', () => {
  it(`${ROUNDS} rounds: acknowledged writes survive, nothing partial, retries create exactly once`, async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      const started = Date.now();
      const ledger = new Ledger();
      ledgers.push(ledger);
      const load = driveLoad(w, rng, ledger, `s${round}`, LOAD);
      await loadIsFlowing(ledger);
      await sleep(rng.int(200, 1500)); // the random kill point
      await server.kill();
      await load.stop();
      await server.restart();
      const after = await expectConsistent(`server crash ${round}`);
      await retryAndRecord(`server crash ${round}`, ledger, after, started);
    }
  });
});

describe('crash: the database is SIGKILLed mid-load and restarted', () => {
  it(`${ROUNDS} rounds: the server survives, answers 5xx/503 while it is down, recovers without a restart`, async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      const started = Date.now();
      const serverPid = server.pid()!;
      const ledger = new Ledger();
      ledgers.push(ledger);
      const load = driveLoad(w, rng, ledger, `d${round}`, LOAD);
      await loadIsFlowing(ledger);
      await sleep(rng.int(200, 1500));
      await pg.kill();
      const killedAt = Date.now();
      const before = { entries: ledger.ackedEntries().length, items: ledger.ackedItems().length };
      await waitFor('/readyz to answer 503', async () => ((await status('/readyz')) === 503 ? true : undefined), 30_000);
      expect(await status('/healthz')).toBe(200);
      await waitFor(
        'writes refused with 5xx',
        () => ([...ledger.statuses.keys()].some((k) => /^(entry|ingest) 5\d\d$/.test(k)) ? true : undefined),
        30_000,
      );
      const downMs = Date.now() - killedAt;
      await pg.restart();
      const recoveryStarted = Date.now();
      await waitFor('/readyz to answer 200 again', async () => ((await status('/readyz')) === 200 ? true : undefined), 60_000, 100);
      const recoveryMs = Date.now() - recoveryStarted;
      await loadIsFlowing(ledger, before); // writes succeed again through the same server process
      await load.stop();
      expect(isAlive(serverPid)).toBe(true);
      expect(server.pid()).toBe(serverPid);
      const after = await expectConsistent(`database crash ${round}`);
      // the server stays up: every request gets an answer, 200 or a 5xx while the database is away
      const unexpected = [...ledger.statuses.entries()].filter(([k]) => !/ (200|5\d\d)$/.test(k));
      expect(unexpected, 'answers other than 200 and 5xx (or none at all) around the outage').toEqual([]);
      await retryAndRecord(`database crash ${round}`, ledger, after, started, {
        statuses: Object.fromEntries(ledger.statuses),
        downMs,
        recoveryMs,
      });
    }
  });
});

describe('after all the crashes', () => {
  it('every entry event chain verifies and the audit table still refuses UPDATE, DELETE and TRUNCATE', async () => {
    const { verified, invalid } = await verifyAllChains(w.api, w.token, dbUrl(), w.workspaceId);
    expect(invalid).toEqual([]);
    expect(verified).toBeGreaterThan(0);
    await withClient(dbUrl(), async (c) => {
      await expect(c.query(`UPDATE entry_events SET data = '{}'::jsonb WHERE workspace_id = $1`, [w.workspaceId])).rejects.toThrow(
        /append-only/,
      );
      await expect(c.query('DELETE FROM entry_events WHERE workspace_id = $1', [w.workspaceId])).rejects.toThrow(/append-only/);
      await expect(c.query('TRUNCATE entry_events CASCADE')).rejects.toThrow(/append-only/);
    });
    process.stdout.write(`[crash] chains verified: ${verified}\n`);
    for (const f of figures) process.stdout.write(`[crash] ${JSON.stringify(f)}\n`);
  });
});
