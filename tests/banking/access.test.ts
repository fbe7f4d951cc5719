import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { actor, createEntry, bankWorld, camt053, importFile, imported } from '../support/factories/index.js';
import { PERMISSIONS } from '../../shared/permissions.js';
import { lines, rowCount } from './helpers.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});

describe('access (CONTRACT §2, §4, §14)', () => {
  it('403 without the permission (before membership), 404 for a foreign object (also a bank line named in a match body), 403 for a foreign workspaceId, 400 for other foreign ids in a body', async () => {
    const w = await bankWorld(api);
    await imported(w, camt053([{ date: '2026-01-05', amount: '-10.00', id: 'A' }]));
    const [line] = await lines(w);
    const entry = await createEntry(w, { baseCurrency: 'EUR', amountCents: 1_000, entryDate: '2026-01-05' });
    const m = (await api.post('/reconciliation/matches', { lineIds: [line.id], entryIds: [entry.id] }, { token: w.token })).body;

    const noBank = await actor(api, {
      workspaceId: w.workspaceId,
      permissions: PERMISSIONS.filter((p) => p !== 'bank.manage' && p !== 'entry.reconcile'),
    });
    const body = { workspaceId: w.workspaceId, name: 'x', currency: 'EUR', projectId: w.projectId };
    expectErrorBody(await api.post('/bank-accounts', body, { token: noBank.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.patch(`/bank-accounts/${w.account.id}`, { name: 'y' }, { token: noBank.token }), 403, 'FORBIDDEN');
    expectErrorBody(await importFile({ api, token: noBank.token }, w.account.id, camt053([])), 403, 'FORBIDDEN');
    expectErrorBody(await api.post(`/bank-lines/${line.id}/ignore`, { reason: 'x' }, { token: noBank.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.del(`/reconciliation/matches/${m.id}`, { token: noBank.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.post(`/bank-accounts/${w.account.id}/auto-match`, {}, { token: noBank.token }), 403, 'FORBIDDEN');
    // members read without bank.manage
    expect((await api.get(`/bank-accounts/${w.account.id}`, { token: noBank.token })).status).toBe(200);

    const stranger = await actor(api); // every permission, member of another workspace only
    const other = await bankWorld(api);
    expectErrorBody(await api.post('/bank-accounts', body, { token: stranger.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.get('/bank-accounts', { token: stranger.token, query: { workspaceId: w.workspaceId } }), 403, 'FORBIDDEN');
    for (const path of [
      `/bank-accounts/${w.account.id}`,
      `/bank-accounts/${w.account.id}/lines`,
      `/bank-accounts/${w.account.id}/statements`,
      `/bank-accounts/${w.account.id}/reconciliation`,
      `/bank-lines/${line.id}/suggestions`,
      `/reconciliation/matches/${m.id}`,
    ]) {
      expectErrorBody(await api.get(path, { token: stranger.token }), 404, 'NOT_FOUND');
    }
    expectErrorBody(await api.patch(`/bank-accounts/${w.account.id}`, { name: 'y' }, { token: stranger.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.del(`/bank-accounts/${w.account.id}`, { token: stranger.token }), 404, 'NOT_FOUND');
    expectErrorBody(await importFile({ api, token: stranger.token }, w.account.id, camt053([])), 404, 'NOT_FOUND');
    expectErrorBody(await api.post(`/bank-lines/${line.id}/ignore`, { reason: 'x' }, { token: stranger.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.post(`/bank-lines/${line.id}/create-entry`, {}, { token: stranger.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.del(`/reconciliation/matches/${m.id}`, { token: stranger.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.post(`/bank-accounts/${w.account.id}/auto-match`, {}, { token: stranger.token }), 404, 'NOT_FOUND');

    // foreign ids inside bodies: 400 (the lines of a match: 404), nothing written
    const otherEntry = await createEntry(other, { baseCurrency: 'EUR', amountCents: 1_000, entryDate: '2026-01-05' });
    await api.del(`/reconciliation/matches/${m.id}`, { token: w.token });
    expectErrorBody(
      await api.post('/reconciliation/matches', { lineIds: [line.id], entryIds: [otherEntry.id] }, { token: w.token }),
      400,
      'BAD_REQUEST',
    );
    // the lines are the objects a match acts on: another workspace's line is a 404, like an absent one
    expectErrorBody(
      await api.post('/reconciliation/matches', { lineIds: [line.id], entryIds: [entry.id] }, { token: other.token }),
      404,
      'NOT_FOUND',
    );
    expectErrorBody(
      await api.post('/reconciliation/matches', { lineIds: [line.id], entryIds: [otherEntry.id] }, { token: other.token }),
      404,
      'NOT_FOUND',
    );
    expectErrorBody(await api.post('/bank-accounts', { ...body, projectId: other.projectId }, { token: w.token }), 400, 'BAD_REQUEST');
    expectErrorBody(await api.post('/bank-accounts', { ...body, partyId: other.parties[0] }, { token: w.token }), 400, 'BAD_REQUEST');
    expectErrorBody(
      await api.post(`/bank-lines/${line.id}/create-entry`, { partyId: other.parties[0] }, { token: w.token }),
      400,
      'BAD_REQUEST',
    );
    expectErrorBody(
      await api.post(`/bank-lines/${line.id}/create-entry`, { projectId: other.projectId }, { token: w.token }),
      400,
      'BAD_REQUEST',
    );
    expect(await rowCount('bank_matches', 'bank_account_id = :id', { id: w.account.id })).toBe(0);
  });

  it('the account: unknown fields 400, the full number never returned, its entry source is of kind BANK', async () => {
    const w = await bankWorld(api, { accountNumber: 'DE89 3704 0044 0532 0130 00' });
    expect(w.account.accountNumberLast4).toBe('3000');
    expect(JSON.stringify(w.account)).not.toContain('0532013000');
    expect(Object.keys(w.account).sort()).toEqual(
      [
        'id',
        'workspaceId',
        'name',
        'currency',
        'accountNumberLast4',
        'projectId',
        'partyId',
        'entrySourceId',
        'openingBalanceCents',
        'openingDate',
        'ledgerCategoryId', // CONTRACT §23: the account's ledger account, or null (BANK)
        'dateToleranceDays',
        'autoMatch',
        'csvMapping',
        'isActive',
        'createdAt',
        'updatedAt',
      ].sort(),
    );
    const sources = await api.get('/entry-sources', { token: w.token, query: { workspaceId: w.workspaceId } });
    expect(sources.body.find((s: any) => s.id === w.account.entrySourceId)).toMatchObject({ kind: 'BANK', name: 'Main account' });
    expectErrorBody(
      await api.post(
        '/bank-accounts',
        { workspaceId: w.workspaceId, name: 'x', currency: 'EUR', projectId: w.projectId, iban: 'x' },
        { token: w.token },
      ),
      400,
      'BAD_REQUEST',
    );
    expectErrorBody(
      await api.post(
        '/bank-accounts',
        { workspaceId: w.workspaceId, name: 'x', currency: 'EUR', projectId: w.projectId, dateToleranceDays: 31 },
        { token: w.token },
      ),
      400,
      'BAD_REQUEST',
    );
    const patched = await api.patch(`/bank-accounts/${w.account.id}`, { dateToleranceDays: 2, autoMatch: true }, { token: w.token });
    expect(patched.body).toMatchObject({ dateToleranceDays: 2, autoMatch: true });
    expect((await api.get('/bank-accounts', { token: w.token, query: { workspaceId: w.workspaceId } })).body.map((a: any) => a.id)).toEqual(
      [w.account.id],
    );
    expectErrorBody(await api.get('/bank-accounts/not-a-uuid', { token: w.token }), 400, 'BAD_REQUEST');
  });
});
