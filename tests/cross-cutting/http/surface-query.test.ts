import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, startServer, type Api } from '../../support/http.js';
import { createEntry, entryWorld, makeTag, type EntryWorld } from '../../support/factories/index.js';
import { parseQueryString } from '../../../server/http/query-string.js';
import doc from '../../../openapi.json' with { type: 'json' };

/** CONTRACT §1: query strings are strict, and a list has three spellings that mean the same list. */
let api: Api;
let w: EntryWorld;
let tagA: number;
let tagB: number;
const ids: Record<string, number> = {};

beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api, { projects: 2 });
  tagA = await makeTag(api, w.token, w.workspaceId, 'alpha');
  tagB = await makeTag(api, w.token, w.workspaceId, 'beta');
  ids.a = (await createEntry(w, { tagIds: [tagA] })).id;
  ids.b = (await createEntry(w, { tagIds: [tagB], projectId: w.projectIds[1] })).id;
  ids.none = (await createEntry(w)).id;
});

const listed = async (query: string): Promise<number[]> => {
  const res = await api.get(`/entries?workspaceId=${w.workspaceId}&${query}`, { token: w.token });
  expect(res.status, res.text).toBe(200);
  return (res.body.items as { id: number }[]).map((e) => e.id).sort((x, y) => x - y);
};
const csvIds = async (query: string): Promise<number[]> => {
  const res = await api.get(`/entries/export/csv?workspaceId=${w.workspaceId}&${query}`, { token: w.token });
  expect(res.status, res.text).toBe(200);
  return res.text
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => Number(line.split(',')[0]))
    .sort((x, y) => x - y);
};

describe('list-valued query parameters (CONTRACT §1)', () => {
  it('tagIds: the comma, repeated and bracket forms filter alike, on REST and on the CSV export', async () => {
    const both = [ids.a, ids.b].sort((x, y) => x - y);
    for (const q of [
      `tagIds=${tagA},${tagB}`,
      `tagIds=${tagA}&tagIds=${tagB}`,
      `tagIds[]=${tagA}&tagIds[]=${tagB}`,
      `tagIds%5B%5D=${tagA}&tagIds%5B%5D=${tagB}`,
    ]) {
      expect(await listed(q), q).toEqual(both);
      expect(await csvIds(q), q).toEqual(both);
    }
    expect(await listed(`tagIds[]=${tagB}`)).toEqual([ids.b]);
    expect(await csvIds(`tagIds[]=${tagA}`)).toEqual([ids.a]);
  });

  it('a parameter that takes one value in the bracket form (workspaceId[]=1, limit[]=5, projectId[]=1) is a 400 naming it', async () => {
    for (const q of [
      `workspaceId[]=${w.workspaceId}`,
      `workspaceId%5B%5D=${w.workspaceId}`,
      `workspaceId=${w.workspaceId}&limit[]=5`,
      `workspaceId=${w.workspaceId}&projectId[]=${w.projectIds[1]}`,
      `workspaceId=${w.workspaceId}&fromDate[]=2026-01-01`,
    ]) {
      const res = await api.get(`/entries?${q}`, { token: w.token });
      expectErrorBody(res, 400, 'BAD_REQUEST');
      expect(res.body.message, q).toMatch(/takes one value/);
    }
    const named = await api.get(`/entries?workspaceId=${w.workspaceId}&limit[]=5`, { token: w.token });
    expect(named.body.message).toBe('Query parameter "limit" takes one value: give it once, without [].');
    expect(named.body.issues.map((i: { path: string[] }) => i.path[0])).toEqual(['limit']);
    expectErrorBody(await api.get(`/entries/export/csv?workspaceId[]=${w.workspaceId}`, { token: w.token }), 400, 'BAD_REQUEST');
    expectErrorBody(
      await api.get(`/reports/summary?workspaceId=${w.workspaceId}&projectId[]=${w.projectIds[1]}`, { token: w.token }),
      400,
      'BAD_REQUEST',
    );
    // the 401 still comes first
    expectErrorBody(await api.get(`/entries?workspaceId[]=${w.workspaceId}`), 401, 'UNAUTHORIZED');
  });

  it('a scalar given twice is a 400, not one of them (even the same value twice)', async () => {
    for (const q of [
      `workspaceId=${w.workspaceId}&projectId[]=${w.projectIds[0]}&projectId[]=${w.projectIds[1]}`,
      `workspaceId=${w.workspaceId}&workspaceId=${w.workspaceId}`,
      `workspaceId=${w.workspaceId}&limit=5&limit=5`,
      `workspaceId=${w.workspaceId}&projectId=${w.projectIds[0]}&projectId[]=${w.projectIds[0]}`,
    ]) {
      expectErrorBody(await api.get(`/entries?${q}`, { token: w.token }), 400, 'BAD_REQUEST');
    }
  });

  it('every documented operation refuses every single-valued query parameter in the bracket form and given twice', async () => {
    const accepted: string[] = [];
    let count = 0;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        const security = (op.security ?? []) as object[];
        if (!security.some((s) => 'Authorization' in s) && security.some((s) => Object.keys(s).length > 0)) continue;
        const concrete = path.replace(/\{[^}]+\}/g, (m) => (/id$/i.test(m.slice(1, -1)) ? '00000000-0000-4000-8000-000000000001' : '1'));
        const single = ((op.parameters ?? []) as { in: string; name: string; schema: { type?: string } }[]).filter(
          (p) => p.in === 'query' && p.schema.type !== 'array',
        );
        for (const p of single) {
          for (const q of [`${p.name}[]=1`, `${p.name}=1&${p.name}=1`]) {
            const res = await api.request(method.toUpperCase(), `${concrete}?${q}`, { token: w.token });
            count++;
            if (res.status !== 400 || !String(res.body?.message).includes('takes one value'))
              accepted.push(`${method} ${path}?${q} → ${res.status}`);
          }
        }
      }
    }
    expect(count).toBeGreaterThan(100);
    expect(accepted).toEqual([]);
  });

  it('the parser merges the spellings of one name and leaves other brackets alone', () => {
    expect({ ...parseQueryString('tagIds[]=1&tagIds=2&x=3') }).toEqual({ tagIds: ['1', '2'], x: '3' });
    expect({ ...parseQueryString('a[b]=1&a[]=2') }).toEqual({ 'a[b]': '1', a: '2' });
  });
});

describe('unknown query parameters (CONTRACT §1)', () => {
  it('?bogus=1 is a 400 naming it, with the list unchanged otherwise', async () => {
    const res = await api.get(`/entries?workspaceId=${w.workspaceId}&bogus=1`, { token: w.token });
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(res.body.message).toContain('bogus');
    expect(res.body.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['bogus'] });
    expectErrorBody(await api.get(`/entries/export/csv?workspaceId=${w.workspaceId}&projectIds=1`, { token: w.token }), 400, 'BAD_REQUEST');
    expectErrorBody(await api.get(`/workspaces?bogus=1`, { token: w.token }), 400, 'BAD_REQUEST');
  });

  it('a write with an unknown query parameter is refused and writes nothing', async () => {
    const before = await listed('limit=100');
    const res = await api.post(
      `/entries?dryRun=true`,
      { projectId: w.projectId, entryType: 'EXPENSE', amountCents: 5, baseCurrency: 'USD', entryDate: '2026-01-15' },
      { token: w.token },
    );
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(await listed('limit=100')).toEqual(before);
  });

  it('every documented operation refuses an unknown query parameter', async () => {
    const refused: string[] = [];
    let count = 0;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { security?: object[] }>>)) {
      for (const [method, op] of Object.entries(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        const security = op.security ?? [];
        const bearer = security.some((s) => 'Authorization' in s);
        if (!bearer && security.some((s) => Object.keys(s).length > 0)) continue; // its own credential: the next test
        const concrete = path.replace(/\{[^}]+\}/g, (m) => (/id$/i.test(m.slice(1, -1)) ? '00000000-0000-4000-8000-000000000001' : '1'));
        const res = await api.request(method.toUpperCase(), `${concrete}?zzUnknownParam=1`, { token: w.token });
        count++;
        if (res.status !== 400 || !String(res.body?.message).includes('zzUnknownParam')) refused.push(`${method} ${path} → ${res.status}`);
      }
    }
    expect(count).toBeGreaterThan(100);
    expect(refused).toEqual([]);
  });

  it('ingest and the accounting webhook check their own credential first, then refuse the parameter and write nothing', async () => {
    const integration = await api.post('/integrations', { workspaceId: w.workspaceId, name: 'Feed' }, { token: w.token });
    const item = {
      externalId: 'q1',
      projectId: w.projectId,
      entryType: 'EXPENSE',
      amountCents: 5,
      baseCurrency: 'USD',
      entryDate: '2026-01-15',
    };
    expectErrorBody(await api.post('/api/v1/ingest?bogus=1', { entries: [item] }), 401, 'UNAUTHORIZED');
    const refused = await api.post('/api/v1/ingest?bogus=1', { entries: [item] }, { headers: { 'X-API-Key': integration.body.apiKey } });
    expectErrorBody(refused, 400, 'BAD_REQUEST');
    expect(refused.body.message).toContain('bogus');
    const connection = await api.post(
      '/accounting/connections',
      { workspaceId: w.workspaceId, providerType: 'MANUAL', name: 'Books', credentials: { apiKey: 'k' } },
      { token: w.token },
    );
    const hook = (query: string) =>
      api.request('POST', `/webhooks/accounting/${connection.body.id}${query}`, {
        rawBody: JSON.stringify({ eventId: 'evt-q', action: 'ENTRY_APPROVED', entryId: ids.none }),
        headers: { 'Content-Type': 'application/json' },
      });
    expectErrorBody(await hook('?bogus=1'), 400, 'BAD_REQUEST');
    expect((await api.get(`/entries/${ids.none}`, { token: w.token })).body.entryStatus).toBe('PENDING');
    expect((await hook('')).status).toBe(200); // the same event id was not used up by the refused delivery
    expect(await listed(`search=${'q1'}`)).toEqual([]);
  });

  it('on tRPC a query carries its parameters as the fields of ?input=: an unknown field is a 400 too, after the 401', async () => {
    const trpcList = (input: Record<string, unknown>, token?: string) =>
      api.get<any>('/trpc/entries.list', { token, query: { input: JSON.stringify(input) } });
    const known = await trpcList({ workspaceId: w.workspaceId, tagIds: [tagA] }, w.token);
    expect(known.status, known.text).toBe(200);
    expect(known.body.result.data.items.map((e: { id: number }) => e.id)).toEqual([ids.a]);
    const bogus = await trpcList({ workspaceId: w.workspaceId, tagIds: [tagA], bogus: 1 }, w.token);
    expect(bogus.status, bogus.text).toBe(400);
    expect(bogus.body.error.message).toBe('Unknown query parameter "bogus".');
    // a name with a quote stays a readable sentence, as on REST
    const quoted = await trpcList({ workspaceId: w.workspaceId, 'a"b': 1 }, w.token);
    expect(quoted.body.error.message).toBe('Unknown query parameter "a%22b".');
    expect(bogus.body.error.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
    expect((await trpcList({ workspaceId: w.workspaceId, bogus: 1 })).status).toBe(401);
  });

  it('an empty value a parameter cannot take is a 400 naming it, not a parameter left out; an empty search is a search', async () => {
    const res = await api.get(`/entries?workspaceId=${w.workspaceId}&toDate=&entryType=`, { token: w.token });
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(res.body.message).toBe('Empty query parameters "toDate", "entryType": give a value, or leave it out.');
    expect(res.body.issues.map((i: { path: string[] }) => i.path[0])).toEqual(['toDate', 'entryType']);
    expectErrorBody(await api.get(`/entries/export/csv?workspaceId=${w.workspaceId}&tagIds=`, { token: w.token }), 400, 'BAD_REQUEST');
    expect(await listed('search=')).toEqual(await listed('limit=100'));
  });

  it('a caller without a valid token gets its 401 first, as on any call', async () => {
    expectErrorBody(await api.get(`/entries?workspaceId=${w.workspaceId}&bogus=1`), 401, 'UNAUTHORIZED');
    expectErrorBody(await api.get(`/entries?workspaceId=${w.workspaceId}&bogus=1`, { token: 'not-a-token' }), 401, 'UNAUTHORIZED');
    expectErrorBody(await api.post('/auth/login?bogus=1', { email: 'a@b.c', password: 'whatever-it-is' }), 400, 'BAD_REQUEST');
  });
});
