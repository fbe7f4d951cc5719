import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../../server/db/database.js';
import { createEntry, entryWorld, type EntryWorld, integrationWorld, type IntegrationWorld } from '../../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../../support/http.js';
import { idempotencyTrial } from '../hard/support/race-trials.js';
import { seededRng } from '../hard/support/rng.js';

/**
 * Idempotency-Key after a crash (issue 10; the hard suite kills real processes, see
 * tests/cross-cutting/hard/crash.test.ts): a key left RUNNING by a process that died is run again when none of
 * its work committed, and refused (409) when it did — never run twice.
 */
let api: Api;
let w: EntryWorld;
let feed: IntegrationWorld;

beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api);
  feed = await integrationWorld(api);
});

type KeyRow = { caller: string; method: string; path: string; request_hash: string; state: string; work_committed: boolean };
const keyRow = async (key: string) =>
  (await db().query<KeyRow>('SELECT * FROM idempotency_keys WHERE key = :key', { replacements: { key }, type: QueryTypes.SELECT }))[0];
const countRef = async (reference: string) =>
  (
    await db().query<{ n: number }>('SELECT count(*)::int AS n FROM entries WHERE reference = :reference', {
      replacements: { reference },
      type: QueryTypes.SELECT,
    })
  )[0]!.n;

const body = (reference: string) => ({
  projectId: w.projectId,
  entryType: 'EXPENSE',
  amountCents: 4_200,
  baseCurrency: 'USD',
  entryDate: '2026-01-20',
  reference,
});
const post = (key: string, reference: string) =>
  api.post('/entries', body(reference), { token: w.token, headers: { 'Idempotency-Key': key } });

/** The row a process leaves behind when it dies mid-request: RUNNING, no response, nobody holding its lock. */
async function abandonedKey(reference: string, workCommitted: boolean): Promise<string> {
  const model = `model-${randomUUID()}`;
  expect((await post(model, reference)).status).toBe(200); // a real request of the same shape, for its caller and request hash
  const row = (await keyRow(model))!;
  const key = `abandoned-${randomUUID()}`;
  await db().query(
    `INSERT INTO idempotency_keys (caller, key, method, path, request_hash, state, work_committed, created_at)
     VALUES (:caller, :key, :method, :path, :hash, 'RUNNING', :workCommitted, now())`,
    { replacements: { caller: row.caller, key, method: row.method, path: row.path, hash: row.request_hash, workCommitted } },
  );
  return key;
}

describe('Idempotency-Key left behind by a crash', () => {
  it('RUNNING, nobody holds it, nothing committed: the retry runs it once and stores the answer', async () => {
    const reference = `abandoned-${randomUUID()}`;
    const key = await abandonedKey(reference, false);
    expect(await countRef(reference)).toBe(1); // the model request's entry
    const retry = await post(key, reference);
    expect(retry.status, retry.text).toBe(200);
    expect(retry.headers.get('idempotency-replayed')).toBeNull();
    expect(await countRef(reference)).toBe(2);
    expect(await keyRow(key)).toMatchObject({ state: 'DONE', work_committed: true });
    const again = await post(key, reference);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body).toEqual(retry.body);
    expect(await countRef(reference)).toBe(2);
  });

  it('RUNNING, nobody holds it, its work committed: 409 (the answer is lost), nothing runs again', async () => {
    const reference = `committed-${randomUUID()}`;
    const key = await abandonedKey(reference, true);
    const retry = await post(key, reference);
    expectErrorBody(retry, 409, 'CONFLICT');
    expect(retry.body.message).toMatch(/response was lost/);
    expect(await countRef(reference)).toBe(1);
  });

  it('the work mark commits with the work, and only then', async () => {
    const created = `mark-${randomUUID()}`;
    expect((await post(created, created)).status).toBe(200);
    expect(await keyRow(created)).toMatchObject({ state: 'DONE', work_committed: true });

    const entry = await createEntry(w, { amountCents: 1_000 });
    const refused = `refused-${randomUUID()}`; // the refund's transaction rolls back (409 above the amount)
    const res = await api.post(
      `/entries/${entry.id}/refund`,
      { amountCents: 5_000 },
      { token: w.token, headers: { 'Idempotency-Key': refused } },
    );
    expectErrorBody(res, 409, 'CONFLICT');
    expect(await keyRow(refused)).toMatchObject({ state: 'DONE', work_committed: false });

    const invalid = `invalid-${randomUUID()}`; // refused before any transaction
    expectErrorBody(
      await api.post('/entries', { projectId: w.projectId }, { token: w.token, headers: { 'Idempotency-Key': invalid } }),
      400,
      'BAD_REQUEST',
    );
    expect(await keyRow(invalid)).toMatchObject({ state: 'DONE', work_committed: false });
  });
});

describe('identical Idempotency-Key requests in parallel (the many-trial run: tests/cross-cutting/hard/races.test.ts)', () => {
  it('6 randomized trials over entry create, refund and ingest: one execution, the others replay or 409', async () => {
    const rng = seededRng('idempotency-fast');
    for (let i = 0; i < 6; i++) await idempotencyTrial(w, feed, rng);
  });
});
