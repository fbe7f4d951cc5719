import { beforeAll, describe, expect, it } from 'vitest';
import { actor, accountingWorld, createCategory, type AccountingWorld } from '../../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../../support/http.js';
import { expectStatus } from '../helpers.js';
import { messageProblem } from '../../support/error-messages.js';

const CATEGORY_KEYS = ['accountType', 'code', 'createdAt', 'externalId', 'id', 'isActive', 'name', 'parentId', 'updatedAt', 'workspaceId'];

let api: Api;
let w: AccountingWorld;

beforeAll(async () => {
  api = await startServer();
  w = await accountingWorld(api);
});

const list = (query: Record<string, string | number>, token = w.token) => api.get('/accounting/categories', { token, query });
const patch = (id: string, body: unknown) => api.patch(`/accounting/categories/${id}`, body, { token: w.token });

describe('categories (chart of accounts)', () => {
  it('creates a category with exactly the contract fields', async () => {
    const res = await api.post(
      '/accounting/categories',
      { workspaceId: w.workspaceId, code: '6000', name: 'Operating expenses', accountType: 'EXPENSE', externalId: 'qb-60' },
      { token: w.token },
    );
    expectStatus(res, 200);
    expect(Object.keys(res.body).sort()).toEqual(CATEGORY_KEYS);
    expect(res.body).toMatchObject({
      workspaceId: w.workspaceId,
      code: '6000',
      name: 'Operating expenses',
      accountType: 'EXPENSE',
      parentId: null,
      externalId: 'qb-60',
      isActive: true,
    });
  });

  it('code is unique per workspace (409), but another workspace may use it', async () => {
    await createCategory(w, { code: '7000' });
    expectErrorBody(
      await api.post(
        '/accounting/categories',
        { workspaceId: w.workspaceId, code: '7000', name: 'Again', accountType: 'EXPENSE' },
        { token: w.token },
      ),
      409,
      'CONFLICT',
    );
    await createCategory(w, { code: '(7000' });
    const again = await api.post(
      '/accounting/categories',
      { workspaceId: w.workspaceId, code: '(7000', name: 'Again', accountType: 'EXPENSE' },
      { token: w.token },
    );
    expectErrorBody(again, 409, 'CONFLICT');
    expect(again.body.message).toBe('Category code "(7000" is already used in this workspace');
    expect(messageProblem(again.body.message)).toBeNull();
    const other = await accountingWorld(api);
    await createCategory(other, { code: '7000' });
    const renamed = await createCategory(w, { code: '7001' });
    expectErrorBody(await patch(renamed.id, { code: '7000' }), 409, 'CONFLICT');
  });

  it('a parent must be of the same workspace and accountType (400)', async () => {
    const assets = await createCategory(w, { code: '1000', accountType: 'ASSET', name: 'Assets' });
    const cash = await createCategory(w, { code: '1100', accountType: 'ASSET', name: 'Cash', parentId: assets.id });
    expect(cash.parentId).toBe(assets.id);
    const other = await accountingWorld(api);
    const foreign = await createCategory(other, { code: '1000', accountType: 'ASSET' });
    const post = (body: object) =>
      api.post('/accounting/categories', { workspaceId: w.workspaceId, name: 'X', ...body }, { token: w.token });
    expectErrorBody(await post({ code: '1200', accountType: 'ASSET', parentId: foreign.id }), 400, 'BAD_REQUEST');
    expectErrorBody(await post({ code: '1200', accountType: 'LIABILITY', parentId: assets.id }), 400, 'BAD_REQUEST');
    expectErrorBody(
      await post({ code: '1200', accountType: 'ASSET', parentId: '00000000-0000-4000-8000-000000000000' }),
      400,
      'BAD_REQUEST',
    );
    expectErrorBody(await patch(cash.id, { accountType: 'EQUITY' }), 400, 'BAD_REQUEST'); // its parent is an ASSET
    expectErrorBody(await patch(assets.id, { accountType: 'EQUITY' }), 400, 'BAD_REQUEST'); // its child is an ASSET
  });

  it('refuses cycles (400): itself, its child, its grandchild', async () => {
    const a = await createCategory(w, { code: 'A', accountType: 'REVENUE' });
    const b = await createCategory(w, { code: 'B', accountType: 'REVENUE', parentId: a.id });
    const c = await createCategory(w, { code: 'C', accountType: 'REVENUE', parentId: b.id });
    expectErrorBody(await patch(a.id, { parentId: a.id }), 400, 'BAD_REQUEST');
    expectErrorBody(await patch(a.id, { parentId: b.id }), 400, 'BAD_REQUEST');
    expectErrorBody(await patch(a.id, { parentId: c.id }), 400, 'BAD_REQUEST');
    const moved = await patch(c.id, { parentId: a.id });
    expectStatus(moved, 200);
    expect(moved.body.parentId).toBe(a.id);
    const root = await patch(b.id, { parentId: null });
    expect(root.body.parentId).toBeNull();
  });

  it('PATCH changes name, code and externalId; DELETE deactivates; lists show active ones unless includeInactive=true', async () => {
    const ws = await accountingWorld(api);
    const keep = await createCategory(ws, { code: '4000', name: 'Sales', accountType: 'REVENUE' });
    const gone = await createCategory(ws, { code: '4100', name: 'Old sales', accountType: 'REVENUE' });
    const renamed = await api.patch(
      `/accounting/categories/${keep.id}`,
      { name: 'Sales revenue', code: '4001', externalId: null },
      { token: ws.token },
    );
    expect(renamed.body).toMatchObject({ name: 'Sales revenue', code: '4001', externalId: null });
    const del = await api.del(`/accounting/categories/${gone.id}`, { token: ws.token });
    expectStatus(del, 200);
    expect(del.body).toEqual({ success: true });
    const active = await list({ workspaceId: ws.workspaceId }, ws.token);
    expect(active.body.map((c: any) => c.code)).toEqual(['4001']);
    const all = await list({ workspaceId: ws.workspaceId, includeInactive: 'true' }, ws.token);
    expect(all.body.map((c: any) => [c.code, c.isActive])).toEqual([
      ['4001', true],
      ['4100', false],
    ]);
    expect((await list({ workspaceId: ws.workspaceId, includeInactive: 'false' }, ws.token)).body).toHaveLength(1);
    expectErrorBody(await list({ workspaceId: ws.workspaceId, includeInactive: 'yes' }, ws.token), 400, 'BAD_REQUEST');
    const back = await api.patch(`/accounting/categories/${gone.id}`, { isActive: true }, { token: ws.token });
    expect(back.body.isActive).toBe(true);
  });

  it('refuses bad bodies with 400', async () => {
    const post = (body: object) => api.post('/accounting/categories', body, { token: w.token });
    expectErrorBody(await post({ workspaceId: w.workspaceId, code: 'X1', name: 'n', accountType: 'INCOME' }), 400, 'BAD_REQUEST');
    expectErrorBody(await post({ workspaceId: w.workspaceId, code: '', name: 'n', accountType: 'ASSET' }), 400, 'BAD_REQUEST');
    expectErrorBody(await post({ workspaceId: w.workspaceId, code: 'X2', accountType: 'ASSET' }), 400, 'BAD_REQUEST');
    expectErrorBody(
      await post({ workspaceId: w.workspaceId, code: 'X3', name: 'n', accountType: 'ASSET', color: 'red' }),
      400,
      'BAD_REQUEST',
    );
    expectErrorBody(await list({}), 400, 'BAD_REQUEST');
  });

  it('needs accounting.categories (403) and workspace membership (403 by workspaceId, 404 by id)', async () => {
    const cat = await createCategory(w);
    const lacking = await actor(api, { workspaceId: w.workspaceId, permissions: ['accounting.manage', 'accounting.review'] });
    expectErrorBody(await list({ workspaceId: w.workspaceId }, lacking.token), 403, 'FORBIDDEN');
    expectErrorBody(await api.patch(`/accounting/categories/${cat.id}`, { name: 'x' }, { token: lacking.token }), 403, 'FORBIDDEN');
    const outsider = await actor(api);
    expectErrorBody(await list({ workspaceId: w.workspaceId }, outsider.token), 403, 'FORBIDDEN');
    expectErrorBody(
      await api.post(
        '/accounting/categories',
        { workspaceId: w.workspaceId, code: 'Z', name: 'Z', accountType: 'ASSET' },
        { token: outsider.token },
      ),
      403,
      'FORBIDDEN',
    );
    expectErrorBody(await api.patch(`/accounting/categories/${cat.id}`, { name: 'x' }, { token: outsider.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.del(`/accounting/categories/${cat.id}`, { token: outsider.token }), 404, 'NOT_FOUND');
  });

  it('two concurrent re-parentings cannot close a cycle between them', async () => {
    for (let trial = 0; trial < 5; trial++) {
      const a = await createCategory(w, { accountType: 'LIABILITY' });
      const b = await createCategory(w, { accountType: 'LIABILITY' });
      const [ra, rb] = await Promise.all([patch(a.id, { parentId: b.id }), patch(b.id, { parentId: a.id })]);
      expect([ra.status, rb.status].sort()).toEqual([200, 400]);
    }
  });
});
