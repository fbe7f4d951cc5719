import { randomUUID } from 'node:crypto';
import type { Api, ApiResponse } from '../../../support/http.js';
import type { Rng } from './rng.js';

/** What the crash tests set up once: an admin token, a workspace with a project, parties, tags and an integration. */
export type CrashWorld = {
  api: Api;
  token: string;
  workspaceId: number;
  projectId: number;
  partyIds: number[];
  tags: { id: number; name: string }[];
  integrationId: string;
  apiKey: string;
};

export type SentEntry = { key: string; body: Record<string, any>; ackId?: number; lastStatus?: number };
export type SentBatch = {
  key: string;
  body: { entries: Record<string, any>[] };
  ack?: { externalId: string; status: string; entryId?: number }[];
  lastStatus?: number;
};

/** Every write the load sent, and which ones the server acknowledged with a 2xx. */
export class Ledger {
  entries: SentEntry[] = [];
  batches: SentBatch[] = [];
  statuses = new Map<string, number>();
  count(label: string) {
    this.statuses.set(label, (this.statuses.get(label) ?? 0) + 1);
  }
  ackedEntries = () => this.entries.filter((e) => e.ackId !== undefined);
  ackedItems = () => this.batches.flatMap((b) => b.ack ?? []);
  unackedEntries = () => this.entries.filter((e) => e.ackId === undefined);
  unackedBatches = () => this.batches.filter((b) => b.ack === undefined);
}

const ok = (res: ApiResponse) => res.status === 200 || res.status === 201;

export function entryBody(w: CrashWorld, rng: Rng, key: string): Record<string, any> {
  const a = rng.int(1, 50_000);
  const b = rng.int(1, 50_000);
  const tagIds = w.tags.filter(() => rng.next() < 0.5).map((t) => t.id);
  return {
    projectId: w.projectId,
    entryType: rng.pick(['INCOME', 'EXPENSE'] as const),
    baseCurrency: 'USD',
    amountCents: a + b,
    entryDate: `2026-03-${String(rng.int(1, 28)).padStart(2, '0')}`,
    fromPartyId: w.partyIds[0],
    toPartyId: w.partyIds[1],
    description: `crash load ${key}`,
    reference: key,
    tagIds,
    items: [
      { description: 'first line', quantity: 1, unitAmountCents: a, amountCents: a },
      { description: 'second line', quantity: 1, unitAmountCents: b, amountCents: b },
    ],
    transactions: [{ transactionDate: '2026-03-28', amountCents: a + b, method: 'card', externalRef: key }],
  };
}

export function batchBody(w: CrashWorld, rng: Rng, key: string, size: number) {
  return {
    entries: Array.from({ length: size }, (_, i) => ({
      externalId: `${key}-${i}`,
      projectId: w.projectId,
      entryType: rng.pick(['INCOME', 'EXPENSE'] as const),
      amountCents: rng.int(1, 1_000_000),
      baseCurrency: 'USD',
      entryDate: `2026-04-${String(rng.int(1, 28)).padStart(2, '0')}`,
      description: `ingest ${key}`,
      fromParty: { name: `Feed Vendor ${rng.int(1, 5)}` },
      tagNames: rng.next() < 0.5 ? ['feed', `feed-${rng.int(1, 3)}`] : [],
    })),
  };
}

export function postEntry(w: CrashWorld, e: SentEntry) {
  return w.api.post('/entries', e.body, { token: w.token, headers: { 'Idempotency-Key': e.key } });
}

export function postBatch(w: CrashWorld, b: SentBatch) {
  return w.api.post('/api/v1/ingest', b.body, { headers: { 'X-API-Key': w.apiKey } });
}

/** Sends one entry create and records the outcome (a network error counts as unacknowledged). */
export async function sendEntry(w: CrashWorld, ledger: Ledger, e: SentEntry): Promise<void> {
  try {
    const res = await postEntry(w, e);
    e.lastStatus = res.status;
    ledger.count(`entry ${res.status}`);
    if (ok(res)) e.ackId = res.body.id;
  } catch {
    ledger.count('entry network error');
  }
}

export async function sendBatch(w: CrashWorld, ledger: Ledger, b: SentBatch): Promise<void> {
  try {
    const res = await postBatch(w, b);
    b.lastStatus = res.status;
    ledger.count(`ingest ${res.status}`);
    if (ok(res)) b.ack = res.body.results;
  } catch {
    ledger.count('ingest network error');
  }
}

/**
 * Keeps `entryWorkers` loops creating entries and `ingestWorkers` loops ingesting batches until
 * stop() is called; resolves when every loop has finished its last request.
 */
export function driveLoad(
  w: CrashWorld,
  rng: Rng,
  ledger: Ledger,
  round: string,
  opts: { entryWorkers: number; ingestWorkers: number; batchSize: number },
) {
  let stopped = false;
  const entryLoop = async () => {
    while (!stopped) {
      const e: SentEntry = { key: `${round}-e-${randomUUID()}`, body: {} };
      e.body = entryBody(w, rng, e.key);
      ledger.entries.push(e);
      await sendEntry(w, ledger, e);
      if (e.ackId === undefined) await new Promise((r) => setTimeout(r, 100)); // no hot loop while the server is down
    }
  };
  const ingestLoop = async () => {
    while (!stopped) {
      const key = `${round}-b-${randomUUID()}`;
      const b: SentBatch = { key, body: batchBody(w, rng, key, opts.batchSize) };
      ledger.batches.push(b);
      await sendBatch(w, ledger, b);
      if (b.ack === undefined) await new Promise((r) => setTimeout(r, 100));
    }
  };
  const loops = [...Array.from({ length: opts.entryWorkers }, entryLoop), ...Array.from({ length: opts.ingestWorkers }, ingestLoop)];
  const done = Promise.all(loops);
  return {
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}
