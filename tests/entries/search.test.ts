import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { searchParts, searchTuning } from '../../server/domains/entries/list.service.js';
import { startServer, type Api } from '../support/http.js';
import { entryWorld, makeEntry, type EntryWorld } from '../support/factories/index.js';

/**
 * `search` (CONTRACT §5: case-insensitive substring of description or reference, `%` and `_`
 * literal) gives the same pages and total whichever plan the list service chooses for the term:
 * the walk of the sort order (frequent terms), a rare word's trigram index, or the planner's own.
 * The tuning is shrunk so that a few rows reach every plan.
 */

let api: Api;
let w: EntryWorld;
type Entry = { id: number; entryDate: string; amountCents: number; description: string | null; reference: string | null };
const made: Entry[] = [];
const defaults = { ...searchTuning };
const seen: string[] = [];

beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api);
  const add = async (description: string | null, reference: string | null, i: number) =>
    made.push(
      await makeEntry(api, w.token, {
        projectId: w.projectId,
        entryDate: `2026-0${1 + (i % 3)}-1${i % 5}`,
        amountCents: 100 + (i % 4) * 50,
        ...(description === null ? {} : { description }),
        ...(reference === null ? {} : { reference }),
      }),
    );
  let i = 0;
  // the bench's shape: every description has "entry", the number is what is rare
  for (const n of [1, 2, 3, 12, 42, 4242, 42420, 142424, 7, 8, 9, 10, 11]) await add(`Bench entry ${n}`, `REF-${n}`, i++);
  await add('ENTRY in capitals 4242', null, i++);
  await add('Refund of entry #7', 'REFUND-7', i++);
  await add('Something else', 'INV-4242', i++); // a reference match only
  await add('Discount 50% promo', 'P-1', i++);
  await add('Server costs 500 units', 'a_b-ref', i++);
  await add('50_50 split', 'axb', i++);
  await add('back\\slash entry', null, i++);
  await add(null, null, i);
  searchTuning.observe = (plan) => seen.push(plan);
});
afterEach(() => {
  const { walkRows, walkNeedMax, sampleRows, rareShare } = defaults;
  Object.assign(searchTuning, { walkRows, walkNeedMax, sampleRows, rareShare });
});
afterAll(() => {
  searchTuning.observe = undefined;
});

function expected(term: string, sortOrder: 'ASC' | 'DESC' = 'DESC'): number[] {
  const t = term.toLowerCase();
  const hit = (s: string | null) => s !== null && s.toLowerCase().includes(t);
  const sign = sortOrder === 'ASC' ? 1 : -1;
  return made
    .filter((e) => hit(e.description) || hit(e.reference))
    .sort((a, b) => (a.entryDate !== b.entryDate ? (a.entryDate < b.entryDate ? -1 : 1) * sign : (a.id - b.id) * sign))
    .map((e) => e.id);
}

/** Every page of a search, by cursor (limit 3) and by offset; both must agree, and so must the totals. */
async function searchAll(search: string, extra: Record<string, string | number> = {}) {
  const ids: number[] = [];
  let total = -1;
  let cursor: string | null | undefined;
  let pages = 0;
  do {
    const res = await api.get('/entries', {
      token: w.token,
      query: { workspaceId: w.workspaceId, search, limit: 3, ...extra, ...(cursor ? { cursor } : {}) },
    });
    expect(res.status, res.text).toBe(200);
    ids.push(...res.body.items.map((e: Entry) => e.id));
    if (total >= 0) expect(res.body.total).toBe(total);
    total = res.body.total;
    cursor = res.body.nextCursor;
    expect(++pages).toBeLessThan(50);
  } while (cursor);
  const byOffset: number[] = [];
  for (let offset = 0; offset < Math.max(total, 1); offset += 3) {
    const res = await api.get('/entries', { token: w.token, query: { workspaceId: w.workspaceId, search, limit: 3, offset, ...extra } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.total).toBe(total);
    byOffset.push(...res.body.items.map((e: Entry) => e.id));
  }
  expect(byOffset).toEqual(ids);
  return { ids, total };
}

const TERMS = [
  'entry', // in nearly every row
  'entry 4242', // the bench's term: a frequent word and a rare one
  'ENTRY 42', // case-insensitive
  '4242', // description and reference matches
  'inv-4242', // reference only
  'ref', // references and descriptions ("Refund")
  '50%', // literal %: not "500"
  '50_', // literal _: not "500"
  '%', // nothing but a literal %
  '_', // nothing but a literal _
  'a_b', // literal _ in a reference
  'back\\slash', // a literal backslash
  'en', // no word of three letters: the trigram index cannot help
  'zzz', // no match
  'entry bench', // frequent words, no match together
];

const PLANS = {
  walk: { walkRows: 10_000, walkNeedMax: 200, rareShare: 0.05 },
  trigram: { walkRows: 2, walkNeedMax: 0, rareShare: 100 },
  planner: { walkRows: 2, walkNeedMax: 0, rareShare: -1 },
  'deep (no walk)': { walkRows: 10_000, walkNeedMax: 1, rareShare: 100 },
} as const;

describe('search: the same rows whichever plan is chosen', () => {
  for (const [name, tuning] of Object.entries(PLANS)) {
    it(`plan "${name}": every term, both directions, by cursor and by offset, with exact totals`, async () => {
      Object.assign(searchTuning, tuning);
      seen.length = 0;
      for (const term of TERMS) {
        for (const sortOrder of ['DESC', 'ASC'] as const) {
          const { ids, total } = await searchAll(term, { sortOrder });
          expect(ids, `${term} ${sortOrder}`).toEqual(expected(term, sortOrder));
          expect(total, term).toBe(expected(term).length);
        }
      }
      // the tuning really reached the plan it names
      if (name === 'walk') expect(new Set(seen)).toEqual(new Set(['walked']));
      if (name === 'trigram') expect(seen).toContain('trigram');
      if (name === 'trigram') expect(seen).not.toContain('walked');
      if (name === 'planner') expect(new Set(seen)).toEqual(new Set(['plain']));
      if (name === 'deep (no walk)') expect(seen).not.toContain('walked');
    });
  }

  it('the bench term matches exactly its rows (sanity of the expectation)', () => {
    const byId = new Map(made.map((e) => [e.id, e]));
    expect(expected('entry 4242').map((id) => byId.get(id)!.description)).toEqual(
      expect.arrayContaining(['Bench entry 4242', 'Bench entry 42420']),
    );
    expect(expected('entry 4242')).toHaveLength(2);
    expect(expected('entry 42')).toHaveLength(3); // 42, 4242, 42420 (not 142424)
    expect(expected('50%')).toHaveLength(1);
  });

  it('search combines with the other filters and the amount sort', async () => {
    Object.assign(searchTuning, PLANS.trigram);
    const res = await api.get('/entries', {
      token: w.token,
      query: { workspaceId: w.workspaceId, search: 'entry', amountMin: 150, sortBy: 'amountCents', sortOrder: 'ASC', limit: 100 },
    });
    expect(res.status).toBe(200);
    const want = made
      .filter((e) => (e.description ?? '').toLowerCase().includes('entry') && e.amountCents >= 150)
      .sort((a, b) => a.amountCents - b.amountCents || a.id - b.id)
      .map((e) => e.id);
    expect(res.body.items.map((e: Entry) => e.id)).toEqual(want);
    expect(res.body.total).toBe(want.length);
  });
});

describe('searchParts', () => {
  it('keeps the words of three letters or digits, longest first, without repeats', () => {
    expect(searchParts('entry 4242')).toEqual(['entry', '4242']);
    expect(searchParts('REF-4242')).toEqual(['4242', 'REF']);
    expect(searchParts('50% a_b ab')).toEqual([]);
    expect(searchParts('Entry entry ENTRY')).toEqual(['Entry']);
    expect(searchParts('Café crème')).toEqual(['crème', 'Café']);
  });
});
