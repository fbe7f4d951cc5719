import { beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { ConflictError, createClient, type FetchLike } from '../../client-sdk/src/index.js';
import { db } from '../../server/db/database.js';
import { buildUser, buildWorkspace, type TestUser } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';

/**
 * The SDK's Idempotency-Key against the real server: a mutation whose answer is lost is sent again
 * with the same key and done once, on /trpc and on a REST multipart route alike (CONTRACT §1).
 */

let api: Api;
let user: TestUser;
let workspaceId: number;
let projectId: number;

beforeAll(async () => {
  api = await startServer();
  user = await buildUser();
  const ws = await buildWorkspace({ members: [user.id] });
  workspaceId = ws.id;
  projectId = ws.projectIds[0]!;
});

/** A fetch that lets the first request matching `path` reach the server, then loses its answer. */
function losingFirstAnswerTo(path: string) {
  const seen: { key: string | null; replayed: string | null; status: number }[] = [];
  let lost = false;
  const fetch: FetchLike = async (input, init) => {
    const res = await globalThis.fetch(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!new URL(url).pathname.startsWith(path)) return res;
    seen.push({
      key: new Headers(init?.headers).get('idempotency-key'),
      replayed: res.headers.get('idempotency-replayed'),
      status: res.status,
    });
    if (lost) return res;
    lost = true;
    await res.arrayBuffer();
    throw new TypeError('fetch failed'); // the server did the work; the client never hears of it
  };
  return { fetch, seen };
}

const countEntries = async (reference: string) =>
  (
    await db().query<{ n: number }>('SELECT count(*)::int AS n FROM entries WHERE reference = :reference', {
      replacements: { reference },
      type: QueryTypes.SELECT,
    })
  )[0]!.n;

describe('Idempotency-Key through the SDK', () => {
  it('a tRPC mutation retried after a lost answer is replayed, not done twice', async () => {
    const { fetch, seen } = losingFirstAnswerTo('/trpc/entries.create');
    const client = createClient({ baseUrl: api.baseUrl, fetch, credentials: { email: user.email, password: user.password } });
    const reference = `IDEM-${Date.now()}`;
    const entry = await client.trpc.entries.create.mutate({
      projectId,
      entryType: 'INCOME',
      amountCents: 700,
      baseCurrency: 'USD',
      entryDate: '2026-03-10',
      reference,
    });
    expect(seen).toHaveLength(2);
    expect(seen[1]).toEqual({ key: seen[0]!.key, replayed: 'true', status: 200 });
    expect(await countEntries(reference)).toBe(1);
    expect(entry.reference).toBe(reference);
  });

  it('the same key with another body is a ConflictError on /trpc', async () => {
    const client = createClient({ baseUrl: api.baseUrl, credentials: { email: user.email, password: user.password } });
    const input = { projectId, entryType: 'INCOME' as const, amountCents: 800, baseCurrency: 'USD', entryDate: '2026-03-11' };
    const context = { idempotencyKey: `order-${Date.now()}` };
    await client.trpc.entries.create.mutate(input, { context });
    const error = await client.trpc.entries.create.mutate({ ...input, amountCents: 801 }, { context }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ status: 409, code: 'CONFLICT', requestId: expect.any(String) });
  });

  it('a statement import (multipart) retried after a lost answer is replayed', async () => {
    const { fetch, seen } = losingFirstAnswerTo('/bank-accounts/');
    const client = createClient({ baseUrl: api.baseUrl, fetch, credentials: { email: user.email, password: user.password } });
    const account = await client.trpc.bankAccounts.create.mutate({
      workspaceId,
      name: 'Idem',
      currency: 'EUR',
      projectId,
      autoMatch: false,
    });
    const csv = 'date,amount,text\n2026-01-05,-12.50,Paper\n';
    const mapping = {
      dateColumn: 'date',
      amountColumn: 'amount',
      descriptionColumn: 'text',
      dateFormat: 'YYYY-MM-DD',
      decimalSeparator: '.',
    } as const;
    const statement = await client.banking.importStatement(account.id, new TextEncoder().encode(csv), {
      format: 'CSV',
      csvMapping: mapping,
    });
    expect(statement).toMatchObject({ lineCount: 1, importedCount: 1 });
    expect(seen.map((s) => [s.status, s.replayed])).toEqual([
      [200, null],
      [200, 'true'],
    ]);
    expect(seen[1]!.key).toBe(seen[0]!.key);
  });
});
