import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../server/lib/clock.js';
import { PERMISSIONS, type Permission } from '../../shared/permissions.js';
import {
  actor,
  addProjectMember,
  buildUser,
  buildWorkspace,
  login,
  entryWorld,
  makeEntry,
  makeParty,
  makeTag,
} from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { ISO_TS, listIds, ENTRY_KEYS } from '../support/entries.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});
afterEach(() => clock.reset());

/** A fixed "now" a little ahead of the real one (tokens stay valid), returned as a Date. */
function freezeAt(secondsAhead: number): Date {
  const at = new Date(Math.floor(Date.now() / 1000) * 1000 + secondsAhead * 1000);
  clock.set(() => at);
  return at;
}

const DETAIL_KEYS = [...ENTRY_KEYS, 'documents', 'items', 'parties', 'tags', 'transactions'].sort();

const allBut = (...missing: Permission[]) => PERMISSIONS.filter((p) => !missing.includes(p));

async function events(token: string, id: number) {
  const res = await api.get(`/entries/${id}/events`, { token });
  expect(res.status, res.text).toBe(200);
  return res.body as { kind: string; data: Record<string, unknown>; actorId: string }[];
}

async function manualSourceId(token: string, workspaceId: number): Promise<number> {
  const res = await api.get('/entry-sources', { token, query: { workspaceId } });
  expect(res.status, res.text).toBe(200);
  const manual = (res.body as { id: number; kind: string }[]).filter((s) => s.kind === 'MANUAL');
  expect(manual).toHaveLength(1);
  return manual[0].id;
}

describe('POST /entries', () => {
  it('creates a PENDING entry and returns every field of the entry object', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const from = await makeParty(api, w.token, w.workspaceId, 'Acme Ltd');
    const to = await makeParty(api, w.token, w.workspaceId, 'Globex');
    const sourceId = await manualSourceId(w.token, w.workspaceId);
    const at = freezeAt(2);
    const res = await api.post(
      '/entries',
      {
        projectId: w.projectIds[1],
        entryType: 'EXPENSE',
        amountCents: 12345,
        baseCurrency: 'EUR',
        entryDate: '2026-01-15',
        fromPartyId: from,
        toPartyId: to,
        description: 'Office chairs',
        reference: 'INV-0001',
        excludeFromSync: true,
      },
      { token: w.token },
    );
    expect([200, 201]).toContain(res.status);
    expect(Object.keys(res.body).sort()).toEqual(ENTRY_KEYS);
    expect(res.body).toEqual({
      id: expect.any(Number),
      workspaceId: w.workspaceId,
      projectId: w.projectIds[1],
      entrySourceId: sourceId,
      entryType: 'EXPENSE',
      entryStatus: 'PENDING',
      statusReason: null,
      baseCurrency: 'EUR',
      amountCents: 12345,
      fromPartyId: from,
      toPartyId: to,
      entryDate: '2026-01-15',
      description: 'Office chairs',
      reference: 'INV-0001',
      isReconciled: false,
      reconciledAt: null,
      reconciledBy: null,
      excludeFromSync: true,
      isComplete: false,
      categoryId: null,
      createdBy: w.owner.id,
      createdAt: at.toISOString(),
      updatedAt: at.toISOString(),
      // CONTRACT §17: EUR in a USD workspace without rates: no valuation
      fxRate: null,
      fxRateDate: null,
      amountBaseCents: null,
      recurringEntryId: null,
      occurrenceDate: null,
    });
    expect(Number.isInteger(res.body.id) && res.body.id > 0).toBe(true);

    clock.reset();
    const got = await api.get(`/entries/${res.body.id}`, { token: w.token });
    expect(got.status).toBe(200);
    expect(Object.keys(got.body).sort()).toEqual(DETAIL_KEYS);
    const { items, transactions, documents, tags, parties, ...entry } = got.body;
    expect(entry).toEqual(res.body);
    expect({ items, transactions, documents, tags }).toEqual({ items: [], transactions: [], documents: [], tags: [] });
    expect(parties.from).toEqual({
      id: from,
      workspaceId: w.workspaceId,
      name: 'Acme Ltd',
      partyType: 'ORGANIZATION',
      country: null,
      email: null,
      taxId: null,
      createdAt: expect.stringMatching(ISO_TS),
      updatedAt: expect.stringMatching(ISO_TS),
    });
    expect(parties.to).toEqual({
      ...parties.from,
      id: to,
      name: 'Globex',
      createdAt: expect.stringMatching(ISO_TS),
      updatedAt: expect.stringMatching(ISO_TS),
    });
  });

  it('fills the optional fields with their defaults: MANUAL source, null parties and texts, excludeFromSync false', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const sourceId = await manualSourceId(w.token, w.workspaceId);
    const res = await api.post(
      '/entries',
      { projectId: w.projectIds[0], entryType: 'INCOME', amountCents: 1, baseCurrency: 'USD', entryDate: '2024-02-29' },
      { token: w.token },
    );
    expect([200, 201]).toContain(res.status);
    expect(res.body).toMatchObject({
      entrySourceId: sourceId,
      entryType: 'INCOME',
      entryStatus: 'PENDING',
      amountCents: 1,
      entryDate: '2024-02-29',
      fromPartyId: null,
      toPartyId: null,
      description: null,
      reference: null,
      excludeFromSync: false,
      isComplete: false,
      createdBy: w.owner.id,
    });
    const got = await api.get(`/entries/${res.body.id}`, { token: w.token });
    expect(got.body.parties).toEqual({ from: null, to: null });
  });

  it('accepts an explicit entrySourceId of the same workspace', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const sourceId = await manualSourceId(w.token, w.workspaceId);
    const e = await makeEntry(api, w.token, { projectId: w.projectIds[0], entrySourceId: sourceId });
    expect(e.entrySourceId).toBe(sourceId);
  });

  it('accepts the amount bounds 1 and 1_000_000_000_000_000 and text at its maximum length', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const max = await makeEntry(api, w.token, {
      projectId: w.projectIds[0],
      amountCents: 1_000_000_000_000_000,
      description: 'd'.repeat(2000),
      reference: 'r'.repeat(255),
    });
    expect(max.amountCents).toBe(1_000_000_000_000_000);
    expect(max.description).toBe('d'.repeat(2000));
    expect(max.reference).toBe('r'.repeat(255));
    const min = await makeEntry(api, w.token, { projectId: w.projectIds[0], amountCents: 1 });
    expect(min.amountCents).toBe(1);
  });

  it('refuses an item categoryId that is not an active category of the workspace (400), and writes nothing', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const other = await entryWorld(api, { projects: 2 });
    const foreign = await makeCategory(other);
    const inactive = await makeCategory(w, '7000');
    expect((await api.del(`/accounting/categories/${inactive}`, { token: w.token })).status).toBe(200);
    for (const categoryId of [foreign, inactive, '0b7e1c52-3f7a-4d8e-9a41-2c6f0f1d9e11']) {
      const res = await api.post(
        '/entries',
        {
          projectId: w.projectIds[0],
          entryType: 'EXPENSE',
          amountCents: 100,
          baseCurrency: 'USD',
          entryDate: '2026-01-15',
          items: [{ description: 'Screws', unitAmountCents: 100, amountCents: 100, categoryId }],
        },
        { token: w.token },
      );
      expectErrorBody(res, 400, 'BAD_REQUEST');
    }
    expect(await listIds(api, w.token, { workspaceId: w.workspaceId })).toEqual([]);
  });

  it('stores line items and payments and returns them, with tags sorted by name, in the detail', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const zeta = await makeTag(api, w.token, w.workspaceId, 'zeta', '#00ff00');
    const alpha = await makeTag(api, w.token, w.workspaceId, 'Alpha', '#ff0000');
    const mid = await makeTag(api, w.token, w.workspaceId, 'mid');
    const category = await makeCategory(w);
    const created = await makeEntry(api, w.token, {
      projectId: w.projectIds[0],
      amountCents: 12345,
      tagIds: [zeta, alpha, mid, zeta],
      items: [
        { description: 'Chair', quantity: 2, unitAmountCents: 5000, amountCents: 10000 },
        {
          description: 'Screws',
          quantity: 1.5,
          unitAmountCents: 1000,
          amountCents: 1500,
          categoryId: category,
        },
        { description: 'Delivery', unitAmountCents: 845, amountCents: 845 },
      ],
      transactions: [
        { transactionDate: '2026-01-20', amountCents: 10000, method: 'CARD', externalRef: 'ch_123' },
        { transactionDate: '2026-01-18', amountCents: 2345 },
      ],
    });
    const res = await api.get(`/entries/${created.id}`, { token: w.token });
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([
      { id: expect.any(Number), description: 'Chair', quantity: 2, unitAmountCents: 5000, amountCents: 10000, categoryId: null },
      {
        id: expect.any(Number),
        description: 'Screws',
        quantity: 1.5,
        unitAmountCents: 1000,
        amountCents: 1500,
        categoryId: category,
      },
      { id: expect.any(Number), description: 'Delivery', quantity: 1, unitAmountCents: 845, amountCents: 845, categoryId: null },
    ]);
    expect(new Set(res.body.items.map((i: { id: number }) => i.id)).size).toBe(3);
    expect(res.body.transactions).toEqual([
      { id: expect.any(Number), transactionDate: '2026-01-18', amountCents: 2345, method: null, externalRef: null },
      { id: expect.any(Number), transactionDate: '2026-01-20', amountCents: 10000, method: 'CARD', externalRef: 'ch_123' },
    ]);
    expect(res.body.tags).toEqual([
      { id: alpha, name: 'Alpha', color: '#ff0000' },
      { id: mid, name: 'mid', color: null },
      { id: zeta, name: 'zeta', color: '#00ff00' },
    ]);
    expect(res.body.documents).toEqual([]);
  });

  describe('refuses a body that fails its schema with 400, creating nothing', () => {
    const cases: [string, Record<string, unknown>][] = [
      ['projectId missing', { projectId: undefined }],
      ['entryType missing', { entryType: undefined }],
      ['amountCents missing', { amountCents: undefined }],
      ['baseCurrency missing', { baseCurrency: undefined }],
      ['entryDate missing', { entryDate: undefined }],
      ['an unknown field', { color: 'red' }],
      ['a server-owned field (entryStatus)', { entryStatus: 'COMPLETED' }],
      ['a server-owned field (createdBy)', { createdBy: '00000000-0000-4000-8000-000000000000' }],
      ['a server-owned field (isReconciled)', { isReconciled: true }],
      ['amountCents 0', { amountCents: 0 }],
      ['amountCents negative', { amountCents: -100 }],
      ['amountCents not an integer', { amountCents: 10.5 }],
      ['amountCents above 1_000_000_000_000_000', { amountCents: 1_000_000_000_000_001 }],
      ['amountCents far above the maximum', { amountCents: 2e18 }],
      ['entryType unknown', { entryType: 'TRANSFER' }],
      ['baseCurrency lower case', { baseCurrency: 'usd' }],
      ['baseCurrency mixed case', { baseCurrency: 'Usd' }],
      ['baseCurrency two letters', { baseCurrency: 'US' }],
      ['baseCurrency four letters', { baseCurrency: 'USDX' }],
      ['entryDate month 13', { entryDate: '2026-13-01' }],
      ['entryDate Feb 30', { entryDate: '2026-02-30' }],
      ['entryDate Feb 29 of a common year', { entryDate: '2026-02-29' }],
      ['entryDate not ISO', { entryDate: '15/01/2026' }],
      ['entryDate unpadded', { entryDate: '2026-1-5' }],
      ['entryDate with a time', { entryDate: '2026-01-15T00:00:00Z' }],
      ['description over 2000', { description: 'x'.repeat(2001) }],
      ['reference over 255', { reference: 'x'.repeat(256) }],
      ['projectId not an integer', { projectId: 'abc' }],
      ['tagIds not an array', { tagIds: 5 }],
      ['item with an unknown field', { items: [{ description: 'A', unitAmountCents: 1000, amountCents: 1000, vat: 1 }] }],
      ['item amount 0', { items: [{ description: 'A', unitAmountCents: 0, amountCents: 0 }], amountCents: 1 }],
      ['transaction with a bad date', { transactions: [{ transactionDate: '2026-02-30', amountCents: 1000 }] }],
    ];
    it.each(cases)('%s', async (_name, patch) => {
      const w = await entryWorld(api, { projects: 2 });
      const body = {
        projectId: w.projectIds[0],
        entryType: 'EXPENSE',
        amountCents: 1000,
        baseCurrency: 'USD',
        entryDate: '2026-01-15',
        ...patch,
      };
      const res = await api.post('/entries', body, { token: w.token });
      expectErrorBody(res, 400, 'BAD_REQUEST');
      expect(Array.isArray(res.body.issues)).toBe(true);
      expect(await listIds(api, w.token, { workspaceId: w.workspaceId })).toEqual([]);
    });
  });

  it('refuses line items that do not sum to amountCents (400) and accepts ones that do', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const items = [
      { description: 'A', unitAmountCents: 600, amountCents: 600 },
      { description: 'B', unitAmountCents: 399, amountCents: 399 },
    ];
    expectErrorBody(
      await api.post(
        '/entries',
        { projectId: w.projectIds[0], entryType: 'EXPENSE', amountCents: 1000, baseCurrency: 'USD', entryDate: '2026-01-15', items },
        { token: w.token },
      ),
      400,
      'BAD_REQUEST',
    );
    expectErrorBody(
      await api.post(
        '/entries',
        { projectId: w.projectIds[0], entryType: 'EXPENSE', amountCents: 998, baseCurrency: 'USD', entryDate: '2026-01-15', items },
        { token: w.token },
      ),
      400,
      'BAD_REQUEST',
    );
    expect(await listIds(api, w.token, { workspaceId: w.workspaceId })).toEqual([]);
    const ok = await makeEntry(api, w.token, { projectId: w.projectIds[0], amountCents: 999, items });
    expect(ok.amountCents).toBe(999);
  });

  it('refuses parties, tags and an entry source of another workspace (400), and unknown ones', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const other = await entryWorld(api, { projects: 2 });
    const foreignParty = await makeParty(api, other.token, other.workspaceId, 'Foreign party');
    const foreignTag = await makeTag(api, other.token, other.workspaceId, 'foreign');
    const foreignSource = await manualSourceId(other.token, other.workspaceId);
    const ownParty = await makeParty(api, w.token, w.workspaceId, 'Own party');
    const ownTag = await makeTag(api, w.token, w.workspaceId, 'own');
    const base = { projectId: w.projectIds[0], entryType: 'EXPENSE', amountCents: 1000, baseCurrency: 'USD', entryDate: '2026-01-15' };
    for (const patch of [
      { fromPartyId: foreignParty },
      { toPartyId: foreignParty },
      { fromPartyId: ownParty, toPartyId: foreignParty },
      { fromPartyId: 2_000_000_000 },
      { tagIds: [foreignTag] },
      { tagIds: [ownTag, foreignTag] },
      { tagIds: [2_000_000_000] },
      { entrySourceId: foreignSource },
      { entrySourceId: 2_000_000_000 },
    ]) {
      const res = await api.post('/entries', { ...base, ...patch }, { token: w.token });
      expectErrorBody(res, 400, 'BAD_REQUEST');
    }
    expect(await listIds(api, w.token, { workspaceId: w.workspaceId })).toEqual([]);
  });

  it('answers 404 for a project of another workspace or one that does not exist', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const other = await buildWorkspace();
    const base = { entryType: 'EXPENSE', amountCents: 1000, baseCurrency: 'USD', entryDate: '2026-01-15' };
    expectErrorBody(await api.post('/entries', { ...base, projectId: other.projectIds[0] }, { token: w.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.post('/entries', { ...base, projectId: 2_000_000_000 }, { token: w.token }), 404, 'NOT_FOUND');
    const otherMember = await actor(api, { workspaceId: other.id });
    expect(await listIds(api, otherMember.token, { workspaceId: other.id })).toEqual([]);
  });

  it('needs entry.create: 403 for the own project and for a foreign one (permission before lookup)', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const other = await buildWorkspace();
    const noCreate = await actor(api, { workspaceId: w.workspaceId, permissions: allBut('entry.create') });
    const base = { entryType: 'EXPENSE', amountCents: 1000, baseCurrency: 'USD', entryDate: '2026-01-15' };
    expectErrorBody(await api.post('/entries', { ...base, projectId: w.projectIds[0] }, { token: noCreate.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.post('/entries', { ...base, projectId: other.projectIds[0] }, { token: noCreate.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.post('/entries', { ...base, projectId: 2_000_000_000 }, { token: noCreate.token }), 403, 'FORBIDDEN');
    expect(await listIds(api, w.token, { workspaceId: w.workspaceId })).toEqual([]);
  });

  it('needs a bearer token (401)', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const base = { projectId: w.projectIds[0], entryType: 'EXPENSE', amountCents: 1000, baseCurrency: 'USD', entryDate: '2026-01-15' };
    expectErrorBody(await api.post('/entries', base), 401, 'UNAUTHORIZED');
  });
});

describe('PATCH /entries/{id}', () => {
  async function setup() {
    const w = await entryWorld(api, { projects: 2 });
    const p1 = await makeParty(api, w.token, w.workspaceId, 'P1');
    const p2 = await makeParty(api, w.token, w.workspaceId, 'P2');
    const entry = await makeEntry(api, w.token, {
      projectId: w.projectIds[0],
      amountCents: 1000,
      entryDate: '2026-01-15',
      description: 'Before',
      reference: 'REF-1',
      fromPartyId: p1,
      toPartyId: p2,
    });
    return { ...w, p1, p2, entry };
  }

  it('changes each editable field, bumps updatedAt, and records ENTRY_UPDATED with {field: {from, to}}', async () => {
    const s = await setup();
    const p3 = await makeParty(api, s.token, s.workspaceId, 'P3');
    const edits: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ description: 'After' }, { description: { from: 'Before', to: 'After' } }],
      [{ reference: 'REF-2' }, { reference: { from: 'REF-1', to: 'REF-2' } }],
      [{ entryDate: '2026-02-01' }, { entryDate: { from: '2026-01-15', to: '2026-02-01' } }],
      [{ amountCents: 2500 }, { amountCents: { from: 1000, to: 2500 } }],
      [{ fromPartyId: p3 }, { fromPartyId: { from: s.p1, to: p3 } }],
      [{ toPartyId: p3 }, { toPartyId: { from: s.p2, to: p3 } }],
      [{ excludeFromSync: true }, { excludeFromSync: { from: false, to: true } }],
    ];
    let expected = { ...s.entry };
    for (const [i, [body, changes]] of edits.entries()) {
      const at = freezeAt(5 + i);
      const res = await api.patch(`/entries/${s.entry.id}`, body, { token: s.token });
      expect(res.status, res.text).toBe(200);
      expected = { ...expected, ...body, updatedAt: at.toISOString() };
      // CONTRACT §17: a USD entry in a USD workspace is valued at rate "1" on its own date
      expected = { ...expected, fxRate: '1', fxRateDate: expected.entryDate, amountBaseCents: expected.amountCents };
      expect(res.body).toEqual(expected);
      clock.reset();
      const evs = await events(s.token, s.entry.id);
      expect(evs).toHaveLength(2 + i);
      expect(evs[evs.length - 1]).toMatchObject({ kind: 'ENTRY_UPDATED', actorId: s.owner.id, data: { changes } });
      expect(evs[evs.length - 1].data).toEqual({ changes });
    }
    const got = await api.get(`/entries/${s.entry.id}`, { token: s.token });
    expect(got.body).toMatchObject(expected);
    expect(got.body.createdAt).toBe(s.entry.createdAt);
  });

  it('records several changed fields in one event and leaves the unchanged ones out', async () => {
    const s = await setup();
    const res = await api.patch(
      `/entries/${s.entry.id}`,
      { description: 'Before', amountCents: 1200, reference: 'REF-9' },
      { token: s.token },
    );
    expect(res.status).toBe(200);
    const evs = await events(s.token, s.entry.id);
    expect(evs.map((e) => e.kind)).toEqual(['ENTRY_CREATED', 'ENTRY_UPDATED']);
    expect(evs[1].data).toEqual({ changes: { amountCents: { from: 1000, to: 1200 }, reference: { from: 'REF-1', to: 'REF-9' } } });
  });

  it('clears description, reference and parties with null', async () => {
    const s = await setup();
    const res = await api.patch(
      `/entries/${s.entry.id}`,
      { description: null, reference: null, fromPartyId: null, toPartyId: null },
      { token: s.token },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ description: null, reference: null, fromPartyId: null, toPartyId: null });
    const got = await api.get(`/entries/${s.entry.id}`, { token: s.token });
    expect(got.body).toMatchObject({ description: null, reference: null, parties: { from: null, to: null } });
    const evs = await events(s.token, s.entry.id);
    expect(evs[1].data).toEqual({
      changes: {
        description: { from: 'Before', to: null },
        reference: { from: 'REF-1', to: null },
        fromPartyId: { from: s.p1, to: null },
        toPartyId: { from: s.p2, to: null },
      },
    });
  });

  it('a no-op edit (same values, or an empty body) changes nothing and records no event', async () => {
    const s = await setup();
    freezeAt(30);
    for (const body of [
      {},
      {
        description: 'Before',
        reference: 'REF-1',
        entryDate: '2026-01-15',
        amountCents: 1000,
        fromPartyId: s.p1,
        toPartyId: s.p2,
        excludeFromSync: false,
      },
    ]) {
      const res = await api.patch(`/entries/${s.entry.id}`, body, { token: s.token });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual(s.entry);
    }
    clock.reset();
    expect((await events(s.token, s.entry.id)).map((e) => e.kind)).toEqual(['ENTRY_CREATED']);
  });

  it('refuses invalid edits with 400 and leaves the entry unchanged', async () => {
    const s = await setup();
    const other = await entryWorld(api, { projects: 2 });
    const foreignParty = await makeParty(api, other.token, other.workspaceId, 'Foreign');
    for (const body of [
      { amountCents: 0 },
      { amountCents: -5 },
      { amountCents: 1.5 },
      { amountCents: 1_000_000_000_000_001 },
      { entryDate: '2026-02-30' },
      { description: 'x'.repeat(2001) },
      { reference: 'x'.repeat(256) },
      { entryType: 'INCOME' },
      { projectId: s.projectIds[1] },
      { entryStatus: 'COMPLETED' },
      { baseCurrency: 'EUR' },
      { isReconciled: true },
      { unknown: 1 },
      { amountCents: null },
      { entryDate: null },
      { fromPartyId: foreignParty },
      { toPartyId: foreignParty },
    ]) {
      const res = await api.patch(`/entries/${s.entry.id}`, body, { token: s.token });
      expectErrorBody(res, 400, 'BAD_REQUEST');
    }
    const got = await api.get(`/entries/${s.entry.id}`, { token: s.token });
    const { items: _i, transactions: _t, documents: _d, tags: _g, parties: _p, ...entry } = got.body;
    expect(entry).toEqual(s.entry);
    expect((await events(s.token, s.entry.id)).map((e) => e.kind)).toEqual(['ENTRY_CREATED']);
  });

  it('needs entry.edit (403, also for a foreign entry) and answers 404 for a foreign or unknown entry', async () => {
    const s = await setup();
    const noEdit = await actor(api, { workspaceId: s.workspaceId, permissions: allBut('entry.edit') });
    expectErrorBody(await api.patch(`/entries/${s.entry.id}`, { description: 'x' }, { token: noEdit.token }), 403, 'FORBIDDEN');
    const other = await entryWorld(api, { projects: 2 });
    const foreign = await makeEntry(api, other.token, { projectId: other.projectIds[0] });
    expectErrorBody(await api.patch(`/entries/${foreign.id}`, { description: 'x' }, { token: noEdit.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.patch(`/entries/${foreign.id}`, { description: 'x' }, { token: s.token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.patch('/entries/999999999', { description: 'x' }, { token: s.token }), 404, 'NOT_FOUND');
    const otherGot = await api.get(`/entries/${foreign.id}`, { token: other.token });
    expect(otherGot.body.description).toBeNull();
  });
});

describe('PUT /entries/{id}/tags', () => {
  it('replaces the tags, returns the entry and records TAGS_CHANGED {from, to}', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const [a, b, c] = [
      await makeTag(api, w.token, w.workspaceId, 'a-tag'),
      await makeTag(api, w.token, w.workspaceId, 'b-tag'),
      await makeTag(api, w.token, w.workspaceId, 'c-tag'),
    ];
    const entry = await makeEntry(api, w.token, { projectId: w.projectIds[0], tagIds: [b, a] });
    const at = freezeAt(3);
    const res = await api.put(`/entries/${entry.id}/tags`, { tagIds: [c, b] }, { token: w.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ ...entry, updatedAt: at.toISOString() });
    clock.reset();
    const got = await api.get(`/entries/${entry.id}`, { token: w.token });
    expect(got.body.tags.map((t: { id: number }) => t.id)).toEqual([b, c]);
    const evs = await events(w.token, entry.id);
    expect(evs.map((e) => e.kind)).toEqual(['ENTRY_CREATED', 'TAGS_CHANGED']);
    expect(evs[1].data).toEqual({ from: [a, b].sort((x, y) => x - y), to: [b, c].sort((x, y) => x - y) });
    expect(evs[1].actorId).toBe(w.owner.id);

    const cleared = await api.put(`/entries/${entry.id}/tags`, { tagIds: [] }, { token: w.token });
    expect(cleared.status).toBe(200);
    expect((await api.get(`/entries/${entry.id}`, { token: w.token })).body.tags).toEqual([]);
    const evs2 = await events(w.token, entry.id);
    expect(evs2).toHaveLength(3);
    expect(evs2[2]).toMatchObject({ kind: 'TAGS_CHANGED', data: { from: [b, c].sort((x, y) => x - y), to: [] } });
  });

  it('records no event when the set of tags is the same', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const a = await makeTag(api, w.token, w.workspaceId, 'one');
    const b = await makeTag(api, w.token, w.workspaceId, 'two');
    const entry = await makeEntry(api, w.token, { projectId: w.projectIds[0], tagIds: [a, b] });
    const res = await api.put(`/entries/${entry.id}/tags`, { tagIds: [b, a, b] }, { token: w.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(entry);
    expect((await events(w.token, entry.id)).map((e) => e.kind)).toEqual(['ENTRY_CREATED']);
  });

  it('refuses a tag of another workspace or an unknown one (400), keeping the old tags', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const other = await entryWorld(api, { projects: 2 });
    const own = await makeTag(api, w.token, w.workspaceId, 'own');
    const foreign = await makeTag(api, other.token, other.workspaceId, 'foreign');
    const entry = await makeEntry(api, w.token, { projectId: w.projectIds[0], tagIds: [own] });
    for (const body of [
      { tagIds: [foreign] },
      { tagIds: [own, foreign] },
      { tagIds: [2_000_000_000] },
      {},
      { tagIds: 'x' },
      { tagIds: [own], extra: 1 },
    ]) {
      expectErrorBody(await api.put(`/entries/${entry.id}/tags`, body, { token: w.token }), 400, 'BAD_REQUEST');
    }
    const got = await api.get(`/entries/${entry.id}`, { token: w.token });
    expect(got.body.tags).toEqual([{ id: own, name: 'own', color: null }]);
    expect((await events(w.token, entry.id)).map((e) => e.kind)).toEqual(['ENTRY_CREATED']);
  });

  it('needs entry.edit (403)', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const entry = await makeEntry(api, w.token, { projectId: w.projectIds[0] });
    const noEdit = await actor(api, { workspaceId: w.workspaceId, permissions: allBut('entry.edit') });
    expectErrorBody(await api.put(`/entries/${entry.id}/tags`, { tagIds: [] }, { token: noEdit.token }), 403, 'FORBIDDEN');
  });
});

describe('access scope (CONTRACT §4)', () => {
  async function world() {
    const w = await entryWorld(api, { projects: 2 });
    const [projectA, projectB] = w.projectIds;
    const party = await makeParty(api, w.token, w.workspaceId, 'Supplier');
    const inA = await makeEntry(api, w.token, { projectId: projectA, description: 'in A', fromPartyId: party });
    const inB = await makeEntry(api, w.token, { projectId: projectB, description: 'in B', fromPartyId: party });
    const inA2 = await makeEntry(api, w.token, { projectId: projectA, description: 'in A too' });
    return { ...w, projectA, projectB, party, inA, inB, inA2 };
  }

  it('a project-only member lists only that project, reads its entries, and gets 404 for the other project', async () => {
    const w = await world();
    const user = await buildUser();
    await addProjectMember(w.projectA, user.id);
    const token = await login(api, user);

    const list = await api.get('/entries', { token, query: { workspaceId: w.workspaceId, sortBy: 'createdAt', sortOrder: 'ASC' } });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(2);
    expect(list.body.items.map((e: { id: number }) => e.id)).toEqual([w.inA.id, w.inA2.id]);
    expect(await listIds(api, token, { workspaceId: w.workspaceId, projectId: w.projectB })).toEqual([]);
    expect(await listIds(api, token, { workspaceId: w.workspaceId, partyId: w.party })).toEqual([w.inA.id]);
    // the workspace member sees all three
    expect(await listIds(api, w.token, { workspaceId: w.workspaceId })).toHaveLength(3);

    const got = await api.get(`/entries/${w.inA.id}`, { token });
    expect(got.status).toBe(200);
    expect(got.body.id).toBe(w.inA.id);
    for (const path of ['', '/notes', '/events', '/events/verify', '/related']) {
      expect((await api.get(`/entries/${w.inA.id}${path}`, { token })).status).toBe(200);
      expectErrorBody(await api.get(`/entries/${w.inB.id}${path}`, { token }), 404, 'NOT_FOUND');
    }
    expectErrorBody(await api.post(`/entries/${w.inB.id}/notes`, { content: 'hi' }, { token }), 404, 'NOT_FOUND');
    expectErrorBody(await api.patch(`/entries/${w.inB.id}`, { description: 'x' }, { token }), 404, 'NOT_FOUND');
    const noteInA = await api.post(`/entries/${w.inA.id}/notes`, { content: 'hi' }, { token });
    expect(noteInA.status).toBe(200);

    // creating: its own project yes, the other project of the workspace no
    const base = { entryType: 'EXPENSE', amountCents: 1000, baseCurrency: 'USD', entryDate: '2026-01-15' };
    const createdA = await api.post('/entries', { ...base, projectId: w.projectA }, { token });
    expect([200, 201]).toContain(createdA.status);
    expect(createdA.body).toMatchObject({ projectId: w.projectA, createdBy: user.id });
    expectErrorBody(await api.post('/entries', { ...base, projectId: w.projectB }, { token }), 404, 'NOT_FOUND');
  });

  it('a project-only member gets 403 for a workspace with none of its projects', async () => {
    const w = await world();
    const other = await buildWorkspace();
    const user = await buildUser();
    await addProjectMember(w.projectA, user.id);
    const token = await login(api, user);
    expectErrorBody(await api.get('/entries', { token, query: { workspaceId: other.id } }), 403, 'FORBIDDEN');
  });

  type Call = {
    name: string;
    method: 'GET' | 'POST' | 'PATCH' | 'PUT';
    path: (id: number) => string;
    body?: (party: number) => unknown;
    permission?: Permission;
  };
  const ENDPOINTS: Call[] = [
    { name: 'GET detail', method: 'GET', path: (id) => `/entries/${id}` },
    {
      name: 'PATCH edit',
      method: 'PATCH',
      path: (id) => `/entries/${id}`,
      body: () => ({ description: 'hacked' }),
      permission: 'entry.edit',
    },
    {
      name: 'PATCH status',
      method: 'PATCH',
      path: (id) => `/entries/${id}/status`,
      body: () => ({ status: 'COMPLETED' }),
      permission: 'entry.edit',
    },
    {
      name: 'POST void',
      method: 'POST',
      path: (id) => `/entries/${id}/void`,
      body: () => ({ reason: 'hacked' }),
      permission: 'entry.void',
    },
    {
      name: 'POST refund',
      method: 'POST',
      path: (id) => `/entries/${id}/refund`,
      body: () => ({ amountCents: 100 }),
      permission: 'entry.void',
    },
    {
      name: 'POST reimburse',
      method: 'POST',
      path: (id) => `/entries/${id}/reimburse`,
      body: (party) => ({ amountCents: 100, fromPartyId: party, toPartyId: party }),
      permission: 'entry.create',
    },
    {
      name: 'POST correct',
      method: 'POST',
      path: (id) => `/entries/${id}/correct`,
      body: () => ({ reason: 'hacked', amountCents: 5 }),
      permission: 'entry.edit',
    },
    {
      name: 'PATCH reconcile',
      method: 'PATCH',
      path: (id) => `/entries/${id}/reconcile`,
      body: () => ({ isReconciled: true }),
      permission: 'entry.reconcile',
    },
    { name: 'GET notes', method: 'GET', path: (id) => `/entries/${id}/notes` },
    {
      name: 'POST notes',
      method: 'POST',
      path: (id) => `/entries/${id}/notes`,
      body: () => ({ content: 'hacked' }),
      permission: 'entry.note',
    },
    { name: 'GET events', method: 'GET', path: (id) => `/entries/${id}/events` },
    { name: 'GET events/verify', method: 'GET', path: (id) => `/entries/${id}/events/verify` },
    { name: 'GET related', method: 'GET', path: (id) => `/entries/${id}/related` },
    { name: 'PUT tags', method: 'PUT', path: (id) => `/entries/${id}/tags`, body: () => ({ tagIds: [] }), permission: 'entry.edit' },
  ];

  let shared: Awaited<ReturnType<typeof world>> & { outsider: { token: string }; outsiderParty: number; tag: number };
  beforeAll(async () => {
    const w = await world();
    const tag = await makeTag(api, w.token, w.workspaceId, 'kept');
    await api.put(`/entries/${w.inA.id}/tags`, { tagIds: [tag] }, { token: w.token });
    const outsiderWs = await buildWorkspace();
    const outsider = await actor(api, { workspaceId: outsiderWs.id });
    const outsiderParty = await makeParty(api, outsider.token, outsiderWs.id, 'Outsider party');
    shared = { ...w, outsider, outsiderParty, tag };
  });

  describe('a member of another workspace gets 404 on every entry endpoint', () => {
    it.each(ENDPOINTS.map((e) => [e.name, e] as const))('%s', async (_name, call) => {
      const { inA, outsider, outsiderParty } = shared;
      const res = await api.request(call.method, call.path(inA.id), { token: outsider.token, body: call.body?.(outsiderParty) });
      expectErrorBody(res, 404, 'NOT_FOUND');
      const unknown = await api.request(call.method, call.path(999_999_999), { token: outsider.token, body: call.body?.(outsiderParty) });
      expectErrorBody(unknown, 404, 'NOT_FOUND');
    });

    it('and none of those calls changed the entry', async () => {
      const { inA, token, workspaceId, tag } = shared;
      const got = await api.get(`/entries/${inA.id}`, { token });
      expect(got.body).toMatchObject({ entryStatus: 'PENDING', description: 'in A', isReconciled: false, amountCents: 1000 });
      expect(got.body.tags.map((t: { id: number }) => t.id)).toEqual([tag]);
      expect((await api.get(`/entries/${inA.id}/notes`, { token })).body).toEqual([]);
      expect((await events(token, inA.id)).map((e) => e.kind)).toEqual(['ENTRY_CREATED', 'TAGS_CHANGED']);
      expect((await api.get(`/entries/${inA.id}/related`, { token })).body).toEqual([]);
      expect(await listIds(api, token, { workspaceId })).toHaveLength(3);
    });
  });

  describe('a caller lacking the permission gets 403 on mutating endpoints, even for a foreign entry', () => {
    const mutating = ENDPOINTS.filter((e) => e.permission);
    it.each(mutating.map((e) => [`${e.name} (${e.permission})`, e] as const))('%s', async (_name, call) => {
      const { inA, workspaceId, outsiderParty, party } = shared;
      const member = await actor(api, { workspaceId, permissions: allBut(call.permission!) });
      expectErrorBody(
        await api.request(call.method, call.path(inA.id), { token: member.token, body: call.body?.(party) }),
        403,
        'FORBIDDEN',
      );
      const outsider = await actor(api, { permissions: [] });
      expectErrorBody(
        await api.request(call.method, call.path(inA.id), { token: outsider.token, body: call.body?.(outsiderParty) }),
        403,
        'FORBIDDEN',
      );
      expectErrorBody(
        await api.request(call.method, call.path(999_999_999), { token: outsider.token, body: call.body?.(outsiderParty) }),
        403,
        'FORBIDDEN',
      );
    });
  });
});

// trpc-to-openapi sets `coerce` on every number/boolean field of a REST input schema, body
// included (and mutates the shared schema objects), so "100" → 100 and "false" → true.
describe('JSON body types are strict (CONTRACT §2: a body failing its schema is a 400)', () => {
  it('refuses a string where a number or a boolean belongs, instead of coercing it', async () => {
    const w = await entryWorld(api, { projects: 2 });
    const base = { projectId: w.projectIds[0], entryType: 'EXPENSE', amountCents: 1000, baseCurrency: 'USD', entryDate: '2026-01-15' };
    for (const patch of [
      { amountCents: '100' },
      { amountCents: true },
      { excludeFromSync: 'yes' },
      { excludeFromSync: 'false' },
      { excludeFromSync: 1 },
    ]) {
      expectErrorBody(await api.post('/entries', { ...base, ...patch }, { token: w.token }), 400, 'BAD_REQUEST');
    }
    expect(await listIds(api, w.token, { workspaceId: w.workspaceId })).toEqual([]);
    const entry = await makeEntry(api, w.token, { projectId: w.projectIds[0] });
    for (const body of [{ excludeFromSync: null }, { excludeFromSync: 'true' }, { amountCents: '2000' }]) {
      expectErrorBody(await api.patch(`/entries/${entry.id}`, body, { token: w.token }), 400, 'BAD_REQUEST');
    }
    // "false" must not reconcile the entry
    expectErrorBody(await api.patch(`/entries/${entry.id}/reconcile`, { isReconciled: 'false' }, { token: w.token }), 400, 'BAD_REQUEST');
    const got = await api.get(`/entries/${entry.id}`, { token: w.token });
    expect(got.body).toMatchObject({ amountCents: 1000, excludeFromSync: false, isReconciled: false });
  });
});

async function makeCategory(w: { token: string; workspaceId: number }, code = '6000'): Promise<string> {
  const res = await api.post(
    '/accounting/categories',
    { workspaceId: w.workspaceId, code, name: `Category ${code}`, accountType: 'EXPENSE' },
    { token: w.token },
  );
  expect(res.status, res.text).toBe(200);
  return res.body.id;
}
