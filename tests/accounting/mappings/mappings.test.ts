import { beforeAll, describe, expect, it } from 'vitest';
import { actor, accountingWorld, createConnection, type AccountingWorld } from '../../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../../support/http.js';
import { expectStatus } from '../helpers.js';

let api: Api;
let w: AccountingWorld;
let connection: any;

beforeAll(async () => {
  api = await startServer();
  w = await accountingWorld(api, { projects: 3 });
  connection = await createConnection(w);
});

const mapping = (partyId: number, n = 1) => ({
  partyId,
  externalId: `ext-${partyId}-${n}`,
  externalType: 'VENDOR',
  externalName: `Vendor ${n}`,
});

describe('party mappings', () => {
  it('creates, lists and deletes a mapping; a second mapping of the same party is a 409', async () => {
    const c = await createConnection(w);
    const res = await api.post('/accounting/mappings/parties', { connectionId: c.id, ...mapping(w.parties[0]) }, { token: w.token });
    expectStatus(res, 200);
    expect(Object.keys(res.body).sort()).toEqual([
      'connectionId',
      'createdAt',
      'externalId',
      'externalName',
      'externalType',
      'id',
      'partyId',
    ]);
    expect(res.body).toMatchObject({
      connectionId: c.id,
      partyId: w.parties[0],
      externalId: `ext-${w.parties[0]}-1`,
      externalType: 'VENDOR',
    });
    expectErrorBody(
      await api.post('/accounting/mappings/parties', { connectionId: c.id, ...mapping(w.parties[0], 2) }, { token: w.token }),
      409,
      'CONFLICT',
    );
    const listed = await api.get('/accounting/mappings/parties', { token: w.token, query: { connectionId: c.id } });
    expect(listed.body).toEqual([res.body]);
    const del = await api.del(`/accounting/mappings/parties/${res.body.id}`, { token: w.token });
    expect(del.body).toEqual({ success: true });
    expect((await api.get('/accounting/mappings/parties', { token: w.token, query: { connectionId: c.id } })).body).toEqual([]);
    expectErrorBody(await api.del(`/accounting/mappings/parties/${res.body.id}`, { token: w.token }), 404, 'NOT_FOUND');
  });

  it('the same party may be mapped once per connection', async () => {
    const other = await createConnection(w);
    expectStatus(
      await api.post('/accounting/mappings/parties', { connectionId: connection.id, ...mapping(w.parties[1]) }, { token: w.token }),
      200,
    );
    expectStatus(
      await api.post('/accounting/mappings/parties', { connectionId: other.id, ...mapping(w.parties[1]) }, { token: w.token }),
      200,
    );
  });

  it('refuses a party of another workspace (400) and a missing field (400)', async () => {
    const foreign = await accountingWorld(api);
    expectErrorBody(
      await api.post('/accounting/mappings/parties', { connectionId: connection.id, ...mapping(foreign.parties[0]) }, { token: w.token }),
      400,
      'BAD_REQUEST',
    );
    const { externalId: _e, ...noExternalId } = mapping(w.parties[2]);
    expectErrorBody(
      await api.post('/accounting/mappings/parties', { connectionId: connection.id, ...noExternalId }, { token: w.token }),
      400,
      'BAD_REQUEST',
    );
    expectErrorBody(await api.get('/accounting/mappings/parties', { token: w.token }), 400, 'BAD_REQUEST');
  });

  it('batch upserts by (connection, party) and returns {created, updated}', async () => {
    const c = await createConnection(w);
    const first = await api.post(
      '/accounting/mappings/parties/batch',
      { connectionId: c.id, mappings: [mapping(w.parties[0]), mapping(w.parties[1])] },
      { token: w.token },
    );
    expectStatus(first, 200);
    expect(first.body).toEqual({ created: 2, updated: 0 });
    const second = await api.post(
      '/accounting/mappings/parties/batch',
      { connectionId: c.id, mappings: [mapping(w.parties[1], 2), mapping(w.parties[2]), mapping(w.parties[3])] },
      { token: w.token },
    );
    expect(second.body).toEqual({ created: 2, updated: 1 });
    const listed = await api.get('/accounting/mappings/parties', { token: w.token, query: { connectionId: c.id } });
    expect(listed.body).toHaveLength(4);
    expect(listed.body.find((m: any) => m.partyId === w.parties[1])).toMatchObject({
      externalId: `ext-${w.parties[1]}-2`,
      externalName: 'Vendor 2',
    });
  });

  it('batch refuses more than 500 items, a repeated party and a foreign party (400) — and writes nothing', async () => {
    const c = await createConnection(w);
    const many = Array.from({ length: 501 }, (_, i) => ({ ...mapping(w.parties[0], i) }));
    expectErrorBody(
      await api.post('/accounting/mappings/parties/batch', { connectionId: c.id, mappings: many }, { token: w.token }),
      400,
      'BAD_REQUEST',
    );
    expectErrorBody(
      await api.post(
        '/accounting/mappings/parties/batch',
        { connectionId: c.id, mappings: [mapping(w.parties[0]), mapping(w.parties[0], 2)] },
        { token: w.token },
      ),
      400,
      'BAD_REQUEST',
    );
    const foreign = await accountingWorld(api);
    expectErrorBody(
      await api.post(
        '/accounting/mappings/parties/batch',
        { connectionId: c.id, mappings: [mapping(w.parties[0]), mapping(foreign.parties[0])] },
        { token: w.token },
      ),
      400,
      'BAD_REQUEST',
    );
    expectErrorBody(
      await api.post('/accounting/mappings/parties/batch', { connectionId: c.id, mappings: [] }, { token: w.token }),
      400,
      'BAD_REQUEST',
    );
    expect((await api.get('/accounting/mappings/parties', { token: w.token, query: { connectionId: c.id } })).body).toEqual([]);
  });

  it('500 items in one batch are fine', async () => {
    const ws = await accountingWorld(api);
    const c = await createConnection(ws);
    const partyIds: number[] = [];
    for (let i = 0; i < 500; i++) partyIds.push(i < 4 ? ws.parties[i] : 0);
    const { Party } = await import('../../../server/db/models/index.js');
    const extra = await Party.bulkCreate(
      Array.from({ length: 496 }, (_, i) => ({ workspaceId: ws.workspaceId, name: `P${i}`, partyType: 'ORGANIZATION' as const })),
      { returning: true },
    );
    extra.forEach((p, i) => (partyIds[i + 4] = p.id));
    const res = await api.post(
      '/accounting/mappings/parties/batch',
      { connectionId: c.id, mappings: partyIds.map((id) => mapping(id)) },
      { token: ws.token },
    );
    expect(res.body).toEqual({ created: 500, updated: 0 });
  });
});

describe('tax mappings', () => {
  it('creates (optional fields default to null), lists by tax code and deletes; a duplicate tax code is a 409', async () => {
    const c = await createConnection(w);
    const vat = await api.post(
      '/accounting/mappings/taxes',
      { connectionId: c.id, taxCode: 'VAT20', externalTaxCodeId: 'qb-tax-7', externalName: 'VAT 20%', ratePercent: 19.6 },
      { token: w.token },
    );
    expectStatus(vat, 200);
    expect(Object.keys(vat.body).sort()).toEqual([
      'connectionId',
      'createdAt',
      'externalName',
      'externalTaxCodeId',
      'id',
      'ratePercent',
      'taxCode',
    ]);
    expect(vat.body).toMatchObject({ taxCode: 'VAT20', externalTaxCodeId: 'qb-tax-7', externalName: 'VAT 20%', ratePercent: 19.6 });
    const exempt = await api.post(
      '/accounting/mappings/taxes',
      { connectionId: c.id, taxCode: 'EXEMPT', externalTaxCodeId: 'qb-tax-0' },
      { token: w.token },
    );
    expect(exempt.body).toMatchObject({ externalName: null, ratePercent: null });
    expectErrorBody(
      await api.post(
        '/accounting/mappings/taxes',
        { connectionId: c.id, taxCode: 'VAT20', externalTaxCodeId: 'other' },
        { token: w.token },
      ),
      409,
      'CONFLICT',
    );
    const listed = await api.get('/accounting/mappings/taxes', { token: w.token, query: { connectionId: c.id } });
    expect(listed.body.map((t: any) => t.taxCode)).toEqual(['EXEMPT', 'VAT20']);
    expect((await api.del(`/accounting/mappings/taxes/${vat.body.id}`, { token: w.token })).body).toEqual({ success: true });
    expect((await api.get('/accounting/mappings/taxes', { token: w.token, query: { connectionId: c.id } })).body).toHaveLength(1);
  });

  it('refuses a missing externalTaxCodeId, a negative rate and more than 4 decimals (400)', async () => {
    const post = (body: object) =>
      api.post('/accounting/mappings/taxes', { connectionId: connection.id, taxCode: 'T', ...body }, { token: w.token });
    expectErrorBody(await post({}), 400, 'BAD_REQUEST');
    expectErrorBody(await post({ externalTaxCodeId: 'x', ratePercent: -1 }), 400, 'BAD_REQUEST');
    expectErrorBody(await post({ externalTaxCodeId: 'x', ratePercent: 1.23456 }), 400, 'BAD_REQUEST');
  });
});

describe('project routing', () => {
  it("POST replaces the connection's projectIds; GET lists [{projectId, projectName}]", async () => {
    const c = await createConnection(w);
    expect((await api.get('/accounting/mappings/projects', { token: w.token, query: { connectionId: c.id } })).body).toEqual([]);
    const set = await api.post(
      '/accounting/mappings/projects',
      { connectionId: c.id, projectIds: [w.projectIds[2], w.projectIds[0]] },
      { token: w.token },
    );
    expectStatus(set, 200);
    const expected = [
      { projectId: w.projectIds[0], projectName: 'Project 1' },
      { projectId: w.projectIds[2], projectName: 'Project 3' },
    ];
    expect(set.body).toEqual(expected);
    expect((await api.get('/accounting/mappings/projects', { token: w.token, query: { connectionId: c.id } })).body).toEqual(expected);
    expect((await api.get(`/accounting/connections/${c.id}`, { token: w.token })).body.projectIds).toEqual([
      w.projectIds[0],
      w.projectIds[2],
    ]);
    const cleared = await api.post('/accounting/mappings/projects', { connectionId: c.id, projectIds: [] }, { token: w.token });
    expect(cleared.body).toEqual([]);
    expect((await api.get(`/accounting/connections/${c.id}`, { token: w.token })).body.projectIds).toEqual([]);
  });

  it("refuses another workspace's project (400) and changes nothing", async () => {
    const c = await createConnection(w, { projectIds: [w.projectIds[1]] });
    const foreign = await accountingWorld(api);
    expectErrorBody(
      await api.post(
        '/accounting/mappings/projects',
        { connectionId: c.id, projectIds: [w.projectIds[0], foreign.projectIds[0]] },
        { token: w.token },
      ),
      400,
      'BAD_REQUEST',
    );
    expect((await api.get(`/accounting/connections/${c.id}`, { token: w.token })).body.projectIds).toEqual([w.projectIds[1]]);
  });
});

describe('access to mappings', () => {
  it('needs accounting.mappings (403); a connection of another workspace is 404 on every mapping route', async () => {
    const lacking = await actor(api, { workspaceId: w.workspaceId, permissions: ['accounting.manage'] });
    expectErrorBody(
      await api.get('/accounting/mappings/parties', { token: lacking.token, query: { connectionId: connection.id } }),
      403,
      'FORBIDDEN',
    );
    expectErrorBody(
      await api.post('/accounting/mappings/projects', { connectionId: connection.id, projectIds: [] }, { token: lacking.token }),
      403,
      'FORBIDDEN',
    );
    const outsider = await accountingWorld(api);
    const t = { token: outsider.token };
    const q = { ...t, query: { connectionId: connection.id } };
    expectErrorBody(await api.get('/accounting/mappings/parties', q), 404, 'NOT_FOUND');
    expectErrorBody(await api.get('/accounting/mappings/taxes', q), 404, 'NOT_FOUND');
    expectErrorBody(await api.get('/accounting/mappings/projects', q), 404, 'NOT_FOUND');
    expectErrorBody(
      await api.post('/accounting/mappings/parties', { connectionId: connection.id, ...mapping(outsider.parties[0]) }, t),
      404,
      'NOT_FOUND',
    );
    expectErrorBody(
      await api.post('/accounting/mappings/parties/batch', { connectionId: connection.id, mappings: [mapping(outsider.parties[0])] }, t),
      404,
      'NOT_FOUND',
    );
    expectErrorBody(
      await api.post('/accounting/mappings/taxes', { connectionId: connection.id, taxCode: 'X', externalTaxCodeId: 'x' }, t),
      404,
      'NOT_FOUND',
    );
    expectErrorBody(await api.post('/accounting/mappings/projects', { connectionId: connection.id, projectIds: [] }, t), 404, 'NOT_FOUND');
    const own = await api.post(
      '/accounting/mappings/parties',
      { connectionId: connection.id, ...mapping(w.parties[3]) },
      { token: w.token },
    );
    const tax = await api.post(
      '/accounting/mappings/taxes',
      { connectionId: connection.id, taxCode: 'OWN', externalTaxCodeId: 'x' },
      { token: w.token },
    );
    expectErrorBody(await api.del(`/accounting/mappings/parties/${own.body.id}`, t), 404, 'NOT_FOUND');
    expectErrorBody(await api.del(`/accounting/mappings/taxes/${tax.body.id}`, t), 404, 'NOT_FOUND');
    expect(
      (await api.get('/accounting/mappings/parties', { token: w.token, query: { connectionId: connection.id } })).body.map(
        (m: any) => m.id,
      ),
    ).toContain(own.body.id);
  });
});
