import { beforeAll, describe, expect, it } from 'vitest';
import { ReadBatch } from '../../server/db/read-batch.js';
import { entryDetailReads } from '../../server/domains/entries/entry-detail.js';
import { addProjectMember, buildUser, entryWorld, login, makeEntry } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';

/**
 * Reads by key that arrive together go to the database in one statement (server/db/read-batch.ts), which the
 * entry detail uses: each caller must still get its own row, its own 404 and no other caller's data.
 */
const turn = () => new Promise((resolve) => setImmediate(resolve));

function gate() {
  let open!: () => void;
  const closed = new Promise<void>((resolve) => (open = resolve));
  return { closed, open };
}

/** A ReadBatch over a fixed table that records the keys of every statement it sends. */
function recorded(opts: { lanes?: number; maxKeys?: number; table?: Map<number, string>; fail?: (keys: number[]) => boolean } = {}) {
  const table = opts.table ?? new Map([1, 2, 3, 4, 5, 6].map((k) => [k, `row ${k}`]));
  const statements: number[][] = [];
  const batch = new ReadBatch<number, string>({
    lanes: opts.lanes ?? 2,
    maxKeys: opts.maxKeys ?? 32,
    load: async (keys) => {
      statements.push([...keys]);
      await turn();
      if (opts.fail?.(keys)) throw new Error(`statement failed for ${keys.join(',')}`);
      return new Map(keys.filter((k) => table.has(k)).map((k) => [k, table.get(k)!]));
    },
  });
  return { batch, statements };
}

describe('ReadBatch', () => {
  it('reads the keys asked for in one turn with one statement; each caller gets its own value, a missing key none', async () => {
    const { batch, statements } = recorded();
    const values = await Promise.all([batch.get(3), batch.get(1), batch.get(3), batch.get(99), batch.get(5)]);
    expect(values).toEqual(['row 3', 'row 1', 'row 3', undefined, 'row 5']);
    expect(statements).toEqual([[3, 1, 99, 5]]);
  });

  it('sends a key asked for alone by itself, at the end of its turn', async () => {
    const { batch, statements } = recorded();
    expect(await batch.get(2)).toBe('row 2');
    expect(await batch.get(4)).toBe('row 4');
    expect(statements).toEqual([[2], [4]]);
  });

  it('while every lane is busy, keys asked for in later turns wait and are read together', async () => {
    const { batch, statements } = recorded({ lanes: 1 });
    const g = gate();
    const held = batch.hold(g.closed);
    const reads = [batch.get(1)];
    await turn();
    reads.push(batch.get(2));
    await turn();
    reads.push(batch.get(6));
    await turn();
    expect(statements).toEqual([]);
    expect(batch.queued).toBe(3);
    g.open();
    await held;
    expect(await Promise.all(reads)).toEqual(['row 1', 'row 2', 'row 6']);
    expect(statements).toEqual([[1, 2, 6]]);
  });

  it('splits a batch at maxKeys and keeps at most `lanes` statements in flight', async () => {
    const { batch, statements } = recorded({ lanes: 2, maxKeys: 2 });
    const values = await Promise.all([1, 2, 3, 4, 5].map((k) => batch.get(k)));
    expect(values).toEqual(['row 1', 'row 2', 'row 3', 'row 4', 'row 5']);
    expect(statements).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('a failed statement fails every caller of its batch and no other', async () => {
    const { batch, statements } = recorded({ lanes: 1, fail: (keys) => keys.includes(1) });
    const g = gate();
    const held = batch.hold(g.closed);
    const first = [batch.get(1), batch.get(2)].map((p) => p.then(String, (err: Error) => `error: ${err.message}`));
    await turn();
    g.open();
    await held;
    expect(await Promise.all(first)).toEqual(['error: statement failed for 1,2', 'error: statement failed for 1,2']);
    expect(await batch.get(3)).toBe('row 3');
    expect(statements).toEqual([[1, 2], [3]]);
  });
});

describe('GET /entries/{id} read together', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startServer();
  });

  it('answers each of many callers asking together with its own entry, and 404 for what it may not see or is not there', async () => {
    const a = await entryWorld(api, { projects: 2 });
    const b = await entryWorld(api);
    const inA1 = await makeEntry(api, a.token, { projectId: a.projectIds[0], amountCents: 1111, description: 'a first' });
    const inA2 = await makeEntry(api, a.token, { projectId: a.projectIds[1], amountCents: 2222, description: 'a second' });
    const inB = await makeEntry(api, b.token, { projectId: b.projectId, amountCents: 3333, description: 'b only' });
    const member = await buildUser({ permissions: [] });
    await addProjectMember(a.projectIds[0], member.id);
    const memberToken = await login(api, member);

    const asks = [
      { token: a.token, id: inA1.id, expect: inA1 },
      { token: b.token, id: inA1.id, expect: null },
      { token: a.token, id: inB.id, expect: null },
      { token: b.token, id: inB.id, expect: inB },
      { token: memberToken, id: inA1.id, expect: inA1 },
      { token: memberToken, id: inA2.id, expect: null },
      { token: a.token, id: inA2.id, expect: inA2 },
      { token: b.token, id: 999_999_999, expect: null },
    ];
    const before = { ...entryDetailReads.stats };
    const g = gate();
    const held = [entryDetailReads.hold(g.closed), entryDetailReads.hold(g.closed)];
    const answers = Promise.all(asks.flatMap((ask) => [1, 2].map(() => api.get(`/entries/${ask.id}`, { token: ask.token }))));
    while (entryDetailReads.queued < 2 * asks.length) await new Promise((r) => setTimeout(r, 5));
    expect(entryDetailReads.stats.statements).toBe(before.statements);
    g.open();
    await Promise.all(held);
    const results = await answers;

    asks.forEach((ask, i) => {
      for (const res of results.slice(2 * i, 2 * i + 2)) {
        if (ask.expect === null) expectErrorBody(res, 404, 'NOT_FOUND');
        else {
          expect(res.status, res.text).toBe(200);
          expect(res.body).toMatchObject({
            id: ask.expect.id,
            workspaceId: ask.expect.workspaceId,
            amountCents: ask.expect.amountCents,
            description: ask.expect.description,
          });
        }
      }
    });
    // 16 reads of 4 distinct ids, all waiting when the lanes opened: one statement
    expect(entryDetailReads.stats.statements - before.statements).toBe(1);
    expect(entryDetailReads.stats.keys - before.keys).toBe(4);
  });
});
