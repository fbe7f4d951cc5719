import pg from 'pg';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import { runtime } from '../../server/runtime.js';
import { documentStorage } from '../../server/storage/document-storage.js';
import { startExtractionWorker, SWEEP_QUEUE, type ExtractionWorker } from '../../server/domains/documents/extraction/extraction-jobs.js';
import { EXTRACT_QUEUE } from '../../server/domains/documents/extraction/extraction-queue.js';
import { startServer, type Api } from '../support/http.js';
import { createEntry, entryWorld, type EntryWorld, inboxed, invoiceXml, uploaded } from '../support/factories/index.js';
import { sha256 } from './helpers.js';
import { extraction } from './inbox-helpers.js';
import { sampleFiles, stated } from './samples.js';

/**
 * CONTRACT §21, the readers of the uploads committed in this process (localReaders in extraction-jobs.ts): a reading
 * that fails goes to pg-boss for its retries, the uploads waiting past the 64 whose bytes are held are read back from
 * storage, and stopping leaves what was not read PENDING for the next start.
 *
 * Two failures are injected in the real database: while the test holds the advisory lock HOLD, every change of a
 * reading's row (its outcome, its attempts) waits, so the readers stay busy without depending on timing; and the first
 * outcome saved of a content listed in fail_reading raises (a sequence counts the tries: it is not rolled back).
 */
const HOLD = 731_021;
/** concurrency 1: one pg-boss reading worker, and four local readers */
const LOCAL_READERS = 4;
const HELD_FILES_MAX = 64;

let api: Api;
let w: EntryWorld;
let holder: pg.Client;
beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api);
  await db().query(`
    CREATE FUNCTION hold_reading() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock_shared(${HOLD});
      RETURN NEW;
    END $$;
    CREATE TRIGGER hold_reading BEFORE UPDATE ON document_extractions FOR EACH ROW EXECUTE FUNCTION hold_reading();
    CREATE TABLE fail_reading (sha256 text PRIMARY KEY);
    CREATE SEQUENCE fail_reading_tries;
    CREATE FUNCTION fail_reading() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.status <> 'PENDING' AND EXISTS (SELECT 1 FROM fail_reading WHERE sha256 = NEW.sha256) THEN
        IF nextval('fail_reading_tries') = 1 THEN
          RAISE EXCEPTION 'injected failure';
        END IF;
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER fail_reading BEFORE UPDATE ON document_extractions FOR EACH ROW EXECUTE FUNCTION fail_reading();
  `);
  holder = new pg.Client({ connectionString: runtime().config.DATABASE_URL });
  await holder.connect();
  return () => holder.end();
});

const workers: ExtractionWorker[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await holder.query('SELECT pg_advisory_unlock_all()');
  for (const worker of workers.splice(0)) await worker.stop();
});

/** Polls every 200 ms (the machine may be loaded: generous deadlines, no tight timings). */
async function until(check: () => Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * A worker whose minute's sweep is unscheduled (only the start's sweep runs): a reading that reaches pg-boss during a test
 * was sent there by a local reader, whenever the minute turns. Its pg-boss worker polls every 0.5 s.
 */
async function start(): Promise<ExtractionWorker> {
  const worker = await startExtractionWorker(runtime().config.DATABASE_URL!, { pollingIntervalSeconds: 0.5, concurrency: 1 });
  workers.push(worker);
  await worker.boss.unschedule(SWEEP_QUEUE);
  await new Promise((r) => setTimeout(r, 1_000)); // past the workers' first fetch and the start's sweep
  return worker;
}
const stop = async (worker: ExtractionWorker) => {
  workers.splice(workers.indexOf(worker), 1);
  await worker.stop();
};

type Invoice = { bytes: Buffer; total: number; net: number; currency: string };
/** `n` distinct invoices: the official samples, each copy made distinct by a trailing comment (else invoices of the factory). */
function invoices(n: number, tag: string): Invoice[] {
  const samples = sampleFiles();
  return Array.from({ length: n }, (_, i) => {
    if (samples.length === 0) {
      const bytes = invoiceXml({ number: `${tag}-${i}`, issueDate: '2026-03-01', totalCents: 1000 + i });
      return { bytes, total: 1000 + i, net: 1000 + i - Math.round(((1000 + i) * 19) / 119), currency: 'USD' };
    }
    const sample = samples[i % samples.length];
    const s = stated(sample.toString('utf8'));
    return { bytes: Buffer.concat([sample, Buffer.from(`\n<!-- ${tag} ${i} -->\n`)]), total: s.total, net: s.net, currency: s.currency };
  });
}

const hold = () => holder.query('SELECT pg_advisory_lock($1)', [HOLD]);
const release = () => holder.query('SELECT pg_advisory_unlock($1)', [HOLD]);

async function rowsOf(shas: string[]): Promise<Map<string, { status: string; attempts: number }>> {
  const rows = await db().query<{ sha256: string; status: string; attempts: number }>(
    'SELECT sha256, status, attempts FROM document_extractions WHERE workspace_id = :ws AND sha256 IN (:shas)',
    { replacements: { ws: w.workspaceId, shas }, type: QueryTypes.SELECT },
  );
  return new Map(rows.map((r) => [r.sha256, r]));
}
const allDone = async (shas: string[]) => [...(await rowsOf(shas)).values()].filter((r) => r.status === 'DONE').length === shas.length;

/** The pg-boss jobs of a content's reading (singletonKey workspace:sha256). */
const jobsOf = (sha: string) =>
  db().query<{ state: string }>('SELECT state FROM pgboss.job WHERE name = :name AND singleton_key = :key', {
    replacements: { name: EXTRACT_QUEUE, key: `${w.workspaceId}:${sha}` },
    type: QueryTypes.SELECT,
  });

const extractedEvents = async (documentId: string) =>
  (
    (await api.get('/webhook-events', { token: w.token, query: { workspaceId: w.workspaceId, type: 'document.extracted', limit: 100 } }))
      .body.items as any[]
  ).filter((e) => e.data.object.documentId === documentId);

describe('the local readers (uploads read in the process that committed them)', () => {
  it('a local reading that fails is retried through pg-boss, and the document is read once (DONE, one document.extracted)', async () => {
    await start();
    const [invoice] = invoices(1, 'retried');
    const sha = sha256(invoice.bytes);
    await db().query('INSERT INTO fail_reading VALUES (:sha)', { replacements: { sha } });

    const doc = await inboxed(api, w.token, w.workspaceId, invoice.bytes);
    expect(doc.extraction.status).toBe('PENDING');
    await until(async () => (await extraction(api, w.token, doc.id)).status === 'DONE', 'the retried reading');

    expect(await extraction(api, w.token, doc.id)).toMatchObject({ status: 'DONE', totalCents: invoice.total, currency: invoice.currency });
    // two saves were tried: the local reading's (the injected failure) and pg-boss's; nothing else read it
    const [{ tries }] = await db().query<{ tries: number }>('SELECT last_value::int AS tries FROM fail_reading_tries', {
      type: QueryTypes.SELECT,
    });
    expect(tries).toBe(2);
    expect(await jobsOf(sha)).toEqual([{ state: 'completed' }]); // the retry went through the queue
    expect(await extractedEvents(doc.id)).toHaveLength(1);
  }, 30_000);

  it('a local reading that cannot read the stored file counts the attempt and is retried through pg-boss (DONE)', async () => {
    await start();
    const entry = await createEntry(w);
    const [invoice] = invoices(1, 'storage');
    const sha = sha256(invoice.bytes);
    // an entry document's reading has no bytes in hand: it reads them back from storage, which fails once
    const open = vi.spyOn(documentStorage(), 'open').mockRejectedValueOnce(Object.assign(new Error('injected EIO'), { code: 'EIO' }));

    const doc = await uploaded(w, entry.id, { bytes: invoice.bytes, name: 'invoice.xml' });
    await until(async () => (await extraction(api, w.token, doc.id)).status === 'DONE', 'the retried reading');

    expect(await extraction(api, w.token, doc.id)).toMatchObject({ status: 'DONE', totalCents: invoice.total, currency: invoice.currency });
    expect(open).toHaveBeenCalledTimes(2); // the local reading's (failed), pg-boss's
    expect((await rowsOf([sha])).get(sha)).toMatchObject({ status: 'DONE', attempts: 2 }); // the failed attempt counted
    expect(await jobsOf(sha)).toEqual([{ state: 'completed' }]);
    expect(await extractedEvents(doc.id)).toHaveLength(1);
  }, 30_000);

  it('uploads waiting past the 64 held in memory are read back from storage, and every one is read right', async () => {
    await start();
    const n = LOCAL_READERS + HELD_FILES_MAX + 12;
    const files = invoices(n, 'burst');
    const shas = files.map((f) => sha256(f.bytes));
    const open = vi.spyOn(documentStorage(), 'open');

    await hold(); // the first four readings wait in their transaction: the later uploads wait for a reader
    const docs: any[] = [];
    for (const f of files) docs.push(await inboxed(api, w.token, w.workspaceId, f.bytes)); // one after another: in order
    expect([...(await rowsOf(shas)).values()].every((r) => r.status === 'PENDING')).toBe(true);
    await release();
    await until(() => allDone(shas), `${n} readings`);

    // only the uploads past the first 4 running and the 64 waiting with their bytes were read back from storage
    const readBack = new Set(open.mock.calls.map(([key]) => key.split('/').at(-1)));
    expect(readBack).toEqual(new Set(shas.slice(LOCAL_READERS + HELD_FILES_MAX)));
    for (const [i, doc] of docs.entries()) {
      expect(await extraction(api, w.token, doc.id), `upload ${i}`).toMatchObject({
        status: 'DONE',
        totalCents: files[i].total,
        netCents: files[i].net,
        currency: files[i].currency,
      });
    }
    for (const sha of shas) expect(await jobsOf(sha)).toEqual([]); // read here, none through the queue
  }, 60_000);

  it('stopping the readers leaves the uploads not read yet PENDING (not FAILED), read after a restart', async () => {
    const worker = await start();
    const files = invoices(LOCAL_READERS + 6, 'stopped');
    const shas = files.map((f) => sha256(f.bytes));

    await hold();
    const docs: any[] = [];
    for (const f of files) docs.push(await inboxed(api, w.token, w.workspaceId, f.bytes));
    const stopped = stop(worker); // drops the waiting readings at once, then waits for the four under way
    await release();
    await stopped;

    const rows = await rowsOf(shas);
    expect(shas.slice(0, LOCAL_READERS).map((s) => rows.get(s)!.status)).toEqual(Array(LOCAL_READERS).fill('DONE'));
    // not lost, not FAILED: still due
    for (const sha of shas.slice(LOCAL_READERS)) expect(rows.get(sha)).toMatchObject({ status: 'PENDING', attempts: 0 });
    for (const doc of docs.slice(LOCAL_READERS)) expect(await extractedEvents(doc.id)).toEqual([]);

    await start(); // the start's sweep queues what was left PENDING
    await until(() => allDone(shas), 'the readings after the restart');
    for (const [i, doc] of docs.entries()) {
      expect(await extraction(api, w.token, doc.id), `upload ${i}`).toMatchObject({ status: 'DONE', totalCents: files[i].total });
      expect(await extractedEvents(doc.id)).toHaveLength(1);
    }
  }, 60_000);
});
