import { createHmac } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../server/lib/clock.js';
import { buildWorkspace, entryWorld, makeEntry, type EntryWorld } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';

/**
 * CONTRACT §18: cursor pages of GET /entries. Every page carries nextCursor (null on the last);
 * following it with the same filters and sort walks the whole list in the order of §5 (sort key,
 * ties by id in the same direction), and entries inserted or changed meanwhile never make a page
 * skip or repeat an entry that stayed in place. A cursor with a non-zero offset, or a malformed
 * or foreign one, is a 400.
 */

let api: Api;
let w: EntryWorld;
afterEach(() => clock.reset());

type Sort = 'entryDate' | 'amountCents' | 'createdAt';
type Entry = { id: number; entryDate: string; amountCents: number; createdAt: string; entryType: string };

const BASE = Math.floor(Date.now() / 1000) * 1000 + 10_000;
/** 23 entries: 4 dates, 5 amounts and 6 creation instants, so every sort has many ties broken by id */
const entries: Entry[] = [];

beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api);
  const dates = ['2026-01-10', '2026-02-20', '2025-12-31', '2026-02-20'];
  const amounts = [500, 1200, 500, 9000, 75];
  for (let i = 0; i < 23; i++) {
    clock.set(() => new Date(BASE + (i % 6) * 1000));
    entries.push(
      await makeEntry(api, w.token, {
        projectId: w.projectId,
        entryType: i % 3 === 0 ? 'INCOME' : 'EXPENSE',
        entryDate: dates[i % dates.length],
        amountCents: amounts[i % amounts.length],
        description: `Cursor entry ${i}`,
      }),
    );
  }
  clock.reset();
});

const keyOf = (e: Entry, sort: Sort) =>
  sort === 'entryDate' ? e.entryDate : sort === 'amountCents' ? e.amountCents : Date.parse(e.createdAt);

/** The order of CONTRACT §5: the sort key, ties by id, both in the requested direction. */
function expectedOrder(list: Entry[], sort: Sort, order: 'ASC' | 'DESC'): number[] {
  const sign = order === 'ASC' ? 1 : -1;
  return [...list]
    .sort((a, b) => {
      const ka = keyOf(a, sort);
      const kb = keyOf(b, sort);
      if (ka !== kb) return (ka < kb ? -1 : 1) * sign;
      return (a.id - b.id) * sign;
    })
    .map((e) => e.id);
}

async function page(query: Record<string, string | number | undefined>, workspaceId = w.workspaceId, token = w.token) {
  const res = await api.get('/entries', { token, query: { workspaceId, ...query } });
  expect(res.status, res.text).toBe(200);
  return res.body as { items: Entry[]; total: number; limit: number; offset: number; nextCursor: string | null };
}

/** Follows nextCursor from the first page to the last; returns every page. */
async function walk(query: Record<string, string | number | undefined>) {
  const pages = [await page(query)];
  while (pages[pages.length - 1].nextCursor) {
    pages.push(await page({ ...query, cursor: pages[pages.length - 1].nextCursor! }));
    expect(pages.length).toBeLessThan(100);
  }
  return pages;
}

describe('walking every page by cursor', () => {
  for (const sortBy of ['entryDate', 'amountCents', 'createdAt'] as const) {
    for (const sortOrder of ['DESC', 'ASC'] as const) {
      it(`visits every entry once, in order, sorted by ${sortBy} ${sortOrder} (ties by id)`, async () => {
        const expected = expectedOrder(entries, sortBy, sortOrder);
        const pages = await walk({ sortBy, sortOrder, limit: 4 });
        expect(pages.map((p) => p.items.length)).toEqual([4, 4, 4, 4, 4, 3]);
        expect(pages.flatMap((p) => p.items.map((e) => e.id))).toEqual(expected);
        for (const p of pages) {
          expect(p.total).toBe(23);
          expect(p.offset).toBe(0);
          expect(p.limit).toBe(4);
        }
        expect(pages.slice(0, -1).every((p) => typeof p.nextCursor === 'string')).toBe(true);
        expect(pages[pages.length - 1].nextCursor).toBeNull();
        // the same pages by offset
        for (let i = 0; i < pages.length; i++) {
          const byOffset = await page({ sortBy, sortOrder, limit: 4, offset: i * 4 });
          expect(byOffset.items.map((e) => e.id)).toEqual(pages[i].items.map((e) => e.id));
        }
      });
    }
  }

  it('ends with nextCursor null when the last page is exactly full (no empty page after it)', async () => {
    const expected = expectedOrder(entries, 'entryDate', 'DESC');
    const first = await page({ limit: 20 });
    const last = await page({ limit: 3, cursor: first.nextCursor! });
    expect(last.items.map((e) => e.id)).toEqual(expected.slice(20));
    expect(last.nextCursor).toBeNull();
    const whole = await page({ limit: 23 });
    expect(whole.items).toHaveLength(23);
    expect(whole.nextCursor).toBeNull();
  });

  it('carries nextCursor on offset pages too: it continues right after that page', async () => {
    const expected = expectedOrder(entries, 'amountCents', 'ASC');
    const third = await page({ sortBy: 'amountCents', sortOrder: 'ASC', limit: 5, offset: 10 });
    expect(third.items.map((e) => e.id)).toEqual(expected.slice(10, 15));
    const next = await page({ sortBy: 'amountCents', sortOrder: 'ASC', limit: 5, cursor: third.nextCursor! });
    expect(next.items.map((e) => e.id)).toEqual(expected.slice(15, 20));
  });

  it('lets the page size change between pages (the cursor is a position)', async () => {
    const expected = expectedOrder(entries, 'createdAt', 'DESC');
    const first = await page({ sortBy: 'createdAt', limit: 2 });
    const second = await page({ sortBy: 'createdAt', limit: 7, cursor: first.nextCursor! });
    expect([...first.items, ...second.items].map((e) => e.id)).toEqual(expected.slice(0, 9));
  });

  it('pages a filtered list (entryType) by cursor', async () => {
    const incomes = entries.filter((e) => e.entryType === 'INCOME');
    const pages = await walk({ entryType: 'INCOME', sortBy: 'amountCents', limit: 3 });
    expect(pages.flatMap((p) => p.items.map((e) => e.id))).toEqual(expectedOrder(incomes, 'amountCents', 'DESC'));
    expect(pages[0].total).toBe(incomes.length);
  });

  it('accepts cursor with offset=0 given explicitly', async () => {
    const first = await page({ limit: 5 });
    const next = await page({ limit: 5, offset: 0, cursor: first.nextCursor! });
    expect(next.items.map((e) => e.id)).toEqual(expectedOrder(entries, 'entryDate', 'DESC').slice(5, 10));
  });
});

describe('writes between pages', () => {
  it('never skips or repeats an entry that did not move, whatever is inserted or changed meanwhile', async () => {
    const own = await entryWorld(api);
    const made: Entry[] = [];
    for (let i = 0; i < 12; i++) {
      made.push(
        await makeEntry(api, own.token, {
          projectId: own.projectId,
          entryDate: `2026-03-${String(10 + i).padStart(2, '0')}`,
          amountCents: 100 + i,
        }),
      );
    }
    const list = (q: Record<string, string | number>) =>
      api.get('/entries', { token: own.token, query: { workspaceId: own.workspaceId, limit: 4, ...q } }).then((r) => {
        expect(r.status, r.text).toBe(200);
        return r.body as { items: Entry[]; nextCursor: string | null };
      });
    // entryDate DESC: 2026-03-21 … 2026-03-10
    const first = await list({});
    expect(first.items.map((e) => e.entryDate)).toEqual(['2026-03-21', '2026-03-20', '2026-03-19', '2026-03-18']);

    // inserted before the cursor (newer), at the cursor's own date with a higher id (sorts before it in DESC),
    // and after it (older, would be on a later page)
    await makeEntry(api, own.token, { projectId: own.projectId, entryDate: '2026-03-25' });
    await makeEntry(api, own.token, { projectId: own.projectId, entryDate: '2026-03-18' });
    const older = await makeEntry(api, own.token, { projectId: own.projectId, entryDate: '2026-03-01' });
    // an entry of a later page moves into the pages already read; one already read moves to the end
    const movedBack = made[4]; // 2026-03-14 → 2026-03-30 (already passed: not shown again)
    const movedAhead = made[11]; // 2026-03-21, on page 1 → 2026-02-01 (ahead of the cursor: shown once more, it moved)
    expect((await api.patch(`/entries/${movedBack.id}`, { entryDate: '2026-03-30' }, { token: own.token })).status).toBe(200);
    expect((await api.patch(`/entries/${movedAhead.id}`, { entryDate: '2026-02-01' }, { token: own.token })).status).toBe(200);

    const rest: Entry[] = [];
    let cursor = first.nextCursor;
    while (cursor) {
      const p = await list({ cursor });
      rest.push(...p.items);
      cursor = p.nextCursor;
    }
    const restIds = rest.map((e) => e.id);
    // every entry that did not move and had not been read yet comes exactly once, in order
    const stayed = made.filter((e) => e !== movedBack && e !== movedAhead && !first.items.some((f) => f.id === e.id));
    for (const e of stayed) expect(restIds.filter((id) => id === e.id)).toHaveLength(1);
    expect(restIds.filter((id) => stayed.some((e) => e.id === id))).toEqual(expectedOrder(stayed, 'entryDate', 'DESC'));
    // none of the entries already read that stayed in place comes again
    for (const f of first.items.filter((e) => e.id !== movedAhead.id)) expect(restIds).not.toContain(f.id);
    // the older insert comes (after the cursor); the newer ones and the entry moved back do not
    expect(restIds).toContain(older.id);
    expect(restIds).not.toContain(movedBack.id);
    expect(restIds).toContain(movedAhead.id);
    expect(rest.every((e) => e.entryDate < '2026-03-18' || (e.entryDate === '2026-03-18' && e.id < first.items[3].id))).toBe(true);
  });
});

describe('refused cursors (400)', () => {
  let cursor: string;
  beforeAll(async () => {
    cursor = (await page({ limit: 5 })).nextCursor!;
    expect(cursor).toEqual(expect.any(String));
  });
  const expect400 = async (query: Record<string, string | number>, workspaceId = w.workspaceId, token = w.token) => {
    const res = await api.get('/entries', { token, query: { workspaceId, limit: 5, ...query } });
    expectErrorBody(res, 400, 'BAD_REQUEST');
    return res;
  };

  it('cursor together with a non-zero offset', async () => {
    const res = await expect400({ cursor, offset: 5 });
    expect(res.body.issues).toEqual(expect.any(Array));
  });

  it('a malformed cursor', async () => {
    for (const bad of ['nonsense', 'a.b', `${cursor}.x`, '.', cursor.split('.')[0], `!!!.${cursor.split('.')[1]}`])
      await expect400({ cursor: bad });
  });

  it('a tampered cursor: payload or signature changed', async () => {
    const [body, sig] = cursor.split('.');
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    const moved = Buffer.from(JSON.stringify({ ...payload, i: payload.i + 1 })).toString('base64url');
    await expect400({ cursor: `${moved}.${sig}` });
    const flipped = sig[0] === 'A' ? `B${sig.slice(1)}` : `A${sig.slice(1)}`;
    await expect400({ cursor: `${body}.${flipped}` });
  });

  it('a forged cursor signed with a guessed key', async () => {
    const [body] = cursor.split('.');
    const forged = createHmac('sha256', 'guess').update(body).digest('base64url');
    await expect400({ cursor: `${body}.${forged}` });
  });

  it('a cursor of another list: other filters, other sort, other direction', async () => {
    await expect400({ cursor, entryType: 'INCOME' });
    await expect400({ cursor, sortBy: 'amountCents' });
    await expect400({ cursor, sortOrder: 'ASC' });
    await expect400({ cursor, search: 'Cursor' });
  });

  it('a cursor of another workspace the caller is a member of', async () => {
    const other = await buildWorkspace({ members: [w.userId] });
    // the caller lists the other workspace fine without a cursor …
    await page({ limit: 5 }, other.id);
    // … but not with this workspace's cursor
    await expect400({ cursor }, other.id);
  });

  it('a cursor that is not a string of the right size', async () => {
    await expect400({ cursor: 'x'.repeat(600) });
  });
});
