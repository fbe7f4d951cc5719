import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../server/lib/clock.js';
import { actor, buildWorkspace, entryWorld, makeEntry, makeParty, makeTag } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { listIds, ENTRY_KEYS } from '../support/entries.js';

let api: Api;
afterEach(() => clock.reset());

type Name = 'E1' | 'E2' | 'E3' | 'E4' | 'E5' | 'E6';

/**
 * Six entries where every filter value splits the set differently:
 *
 * | name | project | type    | amount | date       | from → to | tags   | description              | reference  | status       | reconciled | created |
 * | E1   | A       | EXPENSE | 5000   | 2026-01-10 | P1 → P2   | T1     | Office rent January      | RENT-01    | PENDING      | no         | +2      |
 * | E2   | A       | INCOME  | 500    | 2026-01-10 | P2 → P1   | T2     | Discount 50% promo       | INV-500    | COMPLETED    | yes        | +1      |
 * | E3   | B       | EXPENSE | 50000  | 2026-02-01 | P3 → –    | T1, T2 | Server costs 500 units   | a_b-ref    | CANCELLED    | no         | +2      |
 * | E4   | B       | EXPENSE | 500    | 2026-02-28 | – → P3    | –      | Coffee beans             | axb        | VOIDED       | yes        | +0      |
 * | E5   | A       | INCOME  | 1      | 2025-12-31 | P1 → P3   | T3     | –                        | OFFICE-ref | REJECTED     | no         | +4      |
 * | E6   | A       | INCOME  | 5000   | 2026-03-15 | – → –     | T3     | Misc                     | –          | UNDER_REVIEW | no         | +3      |
 */
let d: {
  workspaceId: number;
  token: string;
  projectA: number;
  projectB: number;
  P1: number;
  P2: number;
  P3: number;
  T1: number;
  T2: number;
  T3: number;
  foreignTag: number;
  foreignProject: number;
  id: Record<Name, number>;
};
/** The default order: entryDate DESC, ties by id DESC. */
const DEFAULT_ORDER: Name[] = ['E6', 'E4', 'E3', 'E2', 'E1', 'E5'];

beforeAll(async () => {
  api = await startServer();
  const w = await entryWorld(api, { projects: 2 });
  const [projectA, projectB] = w.projectIds;
  const token = w.token;
  const P1 = await makeParty(api, token, w.workspaceId, 'P1');
  const P2 = await makeParty(api, token, w.workspaceId, 'P2');
  const P3 = await makeParty(api, token, w.workspaceId, 'P3');
  const T1 = await makeTag(api, token, w.workspaceId, 'T1');
  const T2 = await makeTag(api, token, w.workspaceId, 'T2');
  const T3 = await makeTag(api, token, w.workspaceId, 'T3');

  const base = Math.floor(Date.now() / 1000) * 1000 + 10_000;
  const createdAt = (s: number) => clock.set(() => new Date(base + s * 1000));
  const specs: [Name, number, Record<string, unknown>][] = [
    [
      'E1',
      2,
      {
        projectId: projectA,
        entryType: 'EXPENSE',
        amountCents: 5000,
        entryDate: '2026-01-10',
        fromPartyId: P1,
        toPartyId: P2,
        tagIds: [T1],
        description: 'Office rent January',
        reference: 'RENT-01',
      },
    ],
    [
      'E2',
      1,
      {
        projectId: projectA,
        entryType: 'INCOME',
        amountCents: 500,
        entryDate: '2026-01-10',
        fromPartyId: P2,
        toPartyId: P1,
        tagIds: [T2],
        description: 'Discount 50% promo',
        reference: 'INV-500',
      },
    ],
    [
      'E3',
      2,
      {
        projectId: projectB,
        entryType: 'EXPENSE',
        amountCents: 50000,
        entryDate: '2026-02-01',
        fromPartyId: P3,
        tagIds: [T1, T2],
        description: 'Server costs 500 units',
        reference: 'a_b-ref',
      },
    ],
    [
      'E4',
      0,
      {
        projectId: projectB,
        entryType: 'EXPENSE',
        amountCents: 500,
        entryDate: '2026-02-28',
        toPartyId: P3,
        description: 'Coffee beans',
        reference: 'axb',
      },
    ],
    [
      'E5',
      4,
      {
        projectId: projectA,
        entryType: 'INCOME',
        amountCents: 1,
        entryDate: '2025-12-31',
        fromPartyId: P1,
        toPartyId: P3,
        tagIds: [T3],
        reference: 'OFFICE-ref',
      },
    ],
    ['E6', 3, { projectId: projectA, entryType: 'INCOME', amountCents: 5000, entryDate: '2026-03-15', tagIds: [T3], description: 'Misc' }],
  ];
  const id = {} as Record<Name, number>;
  for (const [name, created, body] of specs) {
    createdAt(created);
    id[name] = (await makeEntry(api, token, body as { projectId: number })).id;
  }
  clock.reset();
  const ok = async (p: Promise<{ status: number; text: string }>) => {
    const res = await p;
    expect(res.status, res.text).toBe(200);
  };
  await ok(api.patch(`/entries/${id.E2}/status`, { status: 'COMPLETED' }, { token }));
  await ok(api.patch(`/entries/${id.E2}/reconcile`, { isReconciled: true }, { token }));
  await ok(api.patch(`/entries/${id.E3}/status`, { status: 'CANCELLED', reason: 'withdrawn' }, { token }));
  await ok(api.patch(`/entries/${id.E4}/reconcile`, { isReconciled: true }, { token }));
  await ok(api.post(`/entries/${id.E4}/void`, { reason: 'duplicate' }, { token }));
  await ok(api.patch(`/entries/${id.E5}/status`, { status: 'REJECTED', reason: 'wrong' }, { token }));
  await ok(api.patch(`/entries/${id.E6}/status`, { status: 'UNDER_REVIEW' }, { token }));

  // another workspace whose entries match most filters; they must never show up
  const other = await entryWorld(api, { projects: 2 });
  const foreignTag = await makeTag(api, other.token, other.workspaceId, 'T1');
  await makeEntry(api, other.token, {
    projectId: other.projectIds[0],
    amountCents: 5000,
    entryDate: '2026-01-10',
    description: 'Office 50% a_b',
    tagIds: [foreignTag],
  });

  d = {
    workspaceId: w.workspaceId,
    token,
    projectA,
    projectB,
    P1,
    P2,
    P3,
    T1,
    T2,
    T3,
    foreignTag,
    foreignProject: other.projectIds[0],
    id,
  };
});

const ids = (names: Name[]) => names.map((n) => d.id[n]);
const inDefaultOrder = (names: Name[]) => ids(DEFAULT_ORDER.filter((n) => names.includes(n)));
const list = (query: Record<string, string | number | boolean | undefined>) =>
  api.get('/entries', { token: d.token, query: { workspaceId: d.workspaceId, ...query } });

describe('GET /entries: page shape and paging', () => {
  it('returns {items, total, limit, offset} of entry objects, sorted by entryDate DESC by default', async () => {
    const res = await list({});
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['items', 'limit', 'nextCursor', 'offset', 'total']);
    expect(res.body.total).toBe(6);
    expect(res.body.limit).toBe(20);
    expect(res.body.offset).toBe(0);
    expect(res.body.items.map((e: { id: number }) => e.id)).toEqual(ids(DEFAULT_ORDER));
    for (const item of res.body.items) expect(Object.keys(item).sort()).toEqual(ENTRY_KEYS);
    const e2 = res.body.items.find((e: { id: number }) => e.id === d.id.E2);
    expect(e2).toMatchObject({
      workspaceId: d.workspaceId,
      projectId: d.projectA,
      entryType: 'INCOME',
      entryStatus: 'COMPLETED',
      amountCents: 500,
      fromPartyId: d.P2,
      toPartyId: d.P1,
      entryDate: '2026-01-10',
      description: 'Discount 50% promo',
      reference: 'INV-500',
      isReconciled: true,
    });
    const e3 = res.body.items.find((e: { id: number }) => e.id === d.id.E3);
    expect(e3).toMatchObject({ entryStatus: 'CANCELLED', statusReason: 'withdrawn' });
  });

  it('pages with limit and offset; total counts every match, not the page', async () => {
    const pages = [];
    for (const offset of [0, 2, 4, 6, 50]) {
      const res = await list({ limit: 2, offset });
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(6);
      expect(res.body.limit).toBe(2);
      expect(res.body.offset).toBe(offset);
      pages.push(res.body.items.map((e: { id: number }) => e.id));
    }
    expect(pages).toEqual([ids(['E6', 'E4']), ids(['E3', 'E2']), ids(['E1', 'E5']), [], []]);
    const filtered = await list({ entryType: 'INCOME', limit: 1, offset: 1 });
    expect(filtered.body.items.map((e: { id: number }) => e.id)).toEqual(ids(['E2']));
    expect(filtered.body.total).toBe(3);
  });

  it('defaults to 20 items, allows 100, and refuses 101', async () => {
    const w = await entryWorld(api, { projects: 2 });
    for (let i = 0; i < 23; i++) await makeEntry(api, w.token, { projectId: w.projectIds[0], amountCents: 100 + i });
    const byDefault = await api.get('/entries', { token: w.token, query: { workspaceId: w.workspaceId } });
    expect(byDefault.body.items).toHaveLength(20);
    expect(byDefault.body.total).toBe(23);
    const hundred = await api.get('/entries', { token: w.token, query: { workspaceId: w.workspaceId, limit: 100 } });
    expect(hundred.status).toBe(200);
    expect(hundred.body.items).toHaveLength(23);
    expect(hundred.body.limit).toBe(100);
    const rest = await api.get('/entries', { token: w.token, query: { workspaceId: w.workspaceId, offset: 20 } });
    expect(rest.body.items).toHaveLength(3);
    expect(rest.body.total).toBe(23);
    expectErrorBody(await api.get('/entries', { token: w.token, query: { workspaceId: w.workspaceId, limit: 101 } }), 400, 'BAD_REQUEST');
  });
});

describe('GET /entries: workspace', () => {
  it('requires workspaceId (400)', async () => {
    const res = await api.get('/entries', { token: d.token });
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(Array.isArray(res.body.issues)).toBe(true);
  });

  it('answers 403 for a workspace the caller is not a member of, or one that does not exist', async () => {
    const outsider = await actor(api);
    expectErrorBody(await api.get('/entries', { token: outsider.token, query: { workspaceId: d.workspaceId } }), 403, 'FORBIDDEN');
    expectErrorBody(await api.get('/entries', { token: d.token, query: { workspaceId: 2_000_000_000 } }), 403, 'FORBIDDEN');
    const otherWs = await buildWorkspace();
    expectErrorBody(await api.get('/entries', { token: d.token, query: { workspaceId: otherWs.id } }), 403, 'FORBIDDEN');
  });

  it('needs no permission beyond membership', async () => {
    const member = await actor(api, { workspaceId: d.workspaceId, permissions: [] });
    const res = await api.get('/entries', { token: member.token, query: { workspaceId: d.workspaceId } });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(6);
  });

  it('needs a bearer token (401)', async () => {
    expectErrorBody(await api.get('/entries', { query: { workspaceId: d.workspaceId } }), 401, 'UNAUTHORIZED');
  });
});

describe('GET /entries: every filter changes the result', () => {
  const cases: [string, () => Record<string, string | number>, Name[]][] = [
    ['projectId A', () => ({ projectId: d.projectA }), ['E1', 'E2', 'E5', 'E6']],
    ['projectId B', () => ({ projectId: d.projectB }), ['E3', 'E4']],
    ['projectId of another workspace', () => ({ projectId: d.foreignProject }), []],
    ['tagIds one tag', () => ({ tagIds: `${d.T1}` }), ['E1', 'E3']],
    ['tagIds another tag', () => ({ tagIds: `${d.T3}` }), ['E5', 'E6']],
    ['tagIds two tags (OR, no duplicates)', () => ({ tagIds: `${d.T1},${d.T2}` }), ['E1', 'E2', 'E3']],
    ['tagIds two other tags (OR)', () => ({ tagIds: `${d.T2},${d.T3}` }), ['E2', 'E3', 'E5', 'E6']],
    ['tagIds all tags', () => ({ tagIds: `${d.T1},${d.T2},${d.T3}` }), ['E1', 'E2', 'E3', 'E5', 'E6']],
    ['tagIds a tag of another workspace', () => ({ tagIds: `${d.foreignTag}` }), []],
    ['entryType INCOME', () => ({ entryType: 'INCOME' }), ['E2', 'E5', 'E6']],
    ['entryType EXPENSE', () => ({ entryType: 'EXPENSE' }), ['E1', 'E3', 'E4']],
    ['entryStatus PENDING', () => ({ entryStatus: 'PENDING' }), ['E1']],
    ['entryStatus COMPLETED', () => ({ entryStatus: 'COMPLETED' }), ['E2']],
    ['entryStatus CANCELLED', () => ({ entryStatus: 'CANCELLED' }), ['E3']],
    ['entryStatus VOIDED', () => ({ entryStatus: 'VOIDED' }), ['E4']],
    ['entryStatus REJECTED', () => ({ entryStatus: 'REJECTED' }), ['E5']],
    ['entryStatus UNDER_REVIEW', () => ({ entryStatus: 'UNDER_REVIEW' }), ['E6']],
    ['fromDate (inclusive)', () => ({ fromDate: '2026-01-10' }), ['E1', 'E2', 'E3', 'E4', 'E6']],
    ['fromDate the day after', () => ({ fromDate: '2026-01-11' }), ['E3', 'E4', 'E6']],
    ['toDate (inclusive)', () => ({ toDate: '2026-01-10' }), ['E1', 'E2', 'E5']],
    ['toDate the day before', () => ({ toDate: '2026-02-27' }), ['E1', 'E2', 'E3', 'E5']],
    ['fromDate = toDate', () => ({ fromDate: '2026-02-28', toDate: '2026-02-28' }), ['E4']],
    ['fromDate and toDate', () => ({ fromDate: '2026-02-01', toDate: '2026-02-28' }), ['E3', 'E4']],
    ['partyId as from or to (P1)', () => ({ partyId: d.P1 }), ['E1', 'E2', 'E5']],
    ['partyId as from or to (P2)', () => ({ partyId: d.P2 }), ['E1', 'E2']],
    ['partyId as from or to (P3)', () => ({ partyId: d.P3 }), ['E3', 'E4', 'E5']],
    ['amountMin (inclusive)', () => ({ amountMin: 500 }), ['E1', 'E2', 'E3', 'E4', 'E6']],
    ['amountMin one above', () => ({ amountMin: 501 }), ['E1', 'E3', 'E6']],
    ['amountMax (inclusive)', () => ({ amountMax: 500 }), ['E2', 'E4', 'E5']],
    ['amountMax one below', () => ({ amountMax: 499 }), ['E5']],
    ['amountMin = amountMax', () => ({ amountMin: 5000, amountMax: 5000 }), ['E1', 'E6']],
    ['search on description and reference, case-insensitive', () => ({ search: 'office' }), ['E1', 'E5']],
    ['search upper case', () => ({ search: 'OFFICE RENT' }), ['E1']],
    ['search on reference only', () => ({ search: 'inv-5' }), ['E2']],
    ['search "500" matches "INV-500" and "500 units"', () => ({ search: '500' }), ['E2', 'E3']],
    ['search "50%" is literal', () => ({ search: '50%' }), ['E2']],
    ['search "%" is literal', () => ({ search: '%' }), ['E2']],
    ['search "a_b" is literal', () => ({ search: 'a_b' }), ['E3']],
    ['search "A_B" is literal and case-insensitive', () => ({ search: 'A_B' }), ['E3']],
    ['search "_" is literal', () => ({ search: '_' }), ['E3']],
    ['search with a backslash', () => ({ search: 'a\\b' }), []],
    ['search without a match', () => ({ search: 'nothing like this' }), []],
    ['isReconciled true', () => ({ isReconciled: 'true' }), ['E2', 'E4']],
    ['isReconciled false', () => ({ isReconciled: 'false' }), ['E1', 'E3', 'E5', 'E6']],
    ['combined: project, type, reconciled', () => ({ projectId: d.projectA, entryType: 'INCOME', isReconciled: 'false' }), ['E5', 'E6']],
    ['combined: tag and amountMin', () => ({ tagIds: `${d.T3}`, amountMin: 2 }), ['E6']],
    ['combined: search, project and fromDate', () => ({ search: 'office', projectId: d.projectA, fromDate: '2026-01-01' }), ['E1']],
    ['combined: party, type and toDate', () => ({ partyId: d.P3, entryType: 'EXPENSE', toDate: '2026-02-01' }), ['E3']],
    ['combined: status and reconciled', () => ({ entryStatus: 'VOIDED', isReconciled: 'true' }), ['E4']],
    ['combined: tags, party and amountMax', () => ({ tagIds: `${d.T1},${d.T3}`, partyId: d.P1, amountMax: 4999 }), ['E5']],
  ];
  it.each(cases)('%s', async (_name, query, expected) => {
    const res = await list({ ...query(), limit: 100 });
    expect(res.status, res.text).toBe(200);
    expect(res.body.items.map((e: { id: number }) => e.id)).toEqual(inDefaultOrder(expected));
    expect(res.body.total).toBe(expected.length);
  });
});

describe('GET /entries: sorting', () => {
  const cases: [string, string, Name[]][] = [
    ['entryDate', 'DESC', ['E6', 'E4', 'E3', 'E2', 'E1', 'E5']],
    ['entryDate', 'ASC', ['E5', 'E1', 'E2', 'E3', 'E4', 'E6']],
    ['amountCents', 'DESC', ['E3', 'E6', 'E1', 'E4', 'E2', 'E5']],
    ['amountCents', 'ASC', ['E5', 'E2', 'E4', 'E1', 'E6', 'E3']],
    ['createdAt', 'DESC', ['E5', 'E6', 'E3', 'E1', 'E2', 'E4']],
    ['createdAt', 'ASC', ['E4', 'E2', 'E1', 'E3', 'E6', 'E5']],
  ];
  it.each(cases)('sortBy %s %s, ties broken by id in the same direction', async (sortBy, sortOrder, expected) => {
    const res = await list({ sortBy, sortOrder });
    expect(res.status).toBe(200);
    expect(res.body.items.map((e: { id: number }) => e.id)).toEqual(ids(expected));
  });

  it('sortOrder defaults to DESC and sortBy to entryDate', async () => {
    expect(await listIds(api, d.token, { workspaceId: d.workspaceId, sortBy: 'amountCents' })).toEqual(
      ids(['E3', 'E6', 'E1', 'E4', 'E2', 'E5']),
    );
    expect(await listIds(api, d.token, { workspaceId: d.workspaceId, sortOrder: 'ASC' })).toEqual(
      ids(['E5', 'E1', 'E2', 'E3', 'E4', 'E6']),
    );
  });

  it('pages stay consistent across ties', async () => {
    const got = [];
    for (let offset = 0; offset < 6; offset++) {
      const res = await list({ sortBy: 'amountCents', sortOrder: 'ASC', limit: 1, offset });
      got.push(res.body.items[0].id);
    }
    expect(got).toEqual(ids(['E5', 'E2', 'E4', 'E1', 'E6', 'E3']));
  });
});

describe('GET /entries: bad parameters are 400', () => {
  const cases: [string, () => Record<string, string | number>][] = [
    ['workspaceId not a number', () => ({ workspaceId: 'abc' })],
    ['workspaceId zero', () => ({ workspaceId: 0 })],
    ['limit 101', () => ({ limit: 101 })],
    ['limit 0', () => ({ limit: 0 })],
    ['limit not a number', () => ({ limit: 'ten' })],
    ['offset negative', () => ({ offset: -1 })],
    ['projectId not a number', () => ({ projectId: 'x' })],
    ['tagIds not numbers', () => ({ tagIds: 'a,b' })],
    ['entryType unknown', () => ({ entryType: 'TRANSFER' })],
    ['entryType lower case', () => ({ entryType: 'income' })],
    ['entryStatus unknown', () => ({ entryStatus: 'DONE' })],
    ['fromDate invalid', () => ({ fromDate: '2026-02-30' })],
    ['toDate not ISO', () => ({ toDate: '01/02/2026' })],
    ['fromDate after toDate', () => ({ fromDate: '2026-02-02', toDate: '2026-02-01' })],
    ['partyId not a number', () => ({ partyId: 'P1' })],
    ['amountMin negative', () => ({ amountMin: -1 })],
    ['amountMax not an integer', () => ({ amountMax: 1.5 })],
    ['amountMin above amountMax', () => ({ amountMin: 10, amountMax: 9 })],
    ['isReconciled not a boolean', () => ({ isReconciled: 'yes' })],
    ['sortBy unknown', () => ({ sortBy: 'description' })],
    ['sortOrder lower case', () => ({ sortOrder: 'desc' })],
  ];
  it.each(cases)('%s', async (_name, query) => {
    const res = await list(query());
    expectErrorBody(res, 400, 'BAD_REQUEST');
  });
});
