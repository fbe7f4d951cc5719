import { beforeAll, describe, expect, it } from 'vitest';
import { startServer, expectErrorBody, type Api } from '../support/http.js';
import { createEntry, entryIn, condition, ruleWorld, type RuleWorld } from '../support/factories/index.js';
import { ledgerState, preview } from './helpers.js';

/**
 * POST /rules/preview (CONTRACT §16): every condition as documented, run over real entries; newest
 * entryDate first; `matched` counts all, `items` at most `limit`; VOIDED and CANCELLED left out;
 * nothing changes.
 */

let api: Api;
let w: RuleWorld;
let e: Record<string, any>;

const KEEP = [{ type: 'SET_EXCLUDE_FROM_SYNC', value: true }];
const idsMatching = async (conditions: unknown[], match = 'ALL') =>
  (await preview(w, { conditions, actions: KEEP, match, limit: 100 })).items.map((i) => i.entryId).sort((a, b) => a - b);
const ids = (...names: string[]) => names.map((n) => e[n].id).sort((a: number, b: number) => a - b);

beforeAll(async () => {
  api = await startServer();
  w = await ruleWorld(api);
  const [acme, globex, initech, umbrella] = w.parties;
  e = {
    // EXPENSE: counterparty is the to-party; INCOME: the from-party
    taxi: await createEntry(w, {
      description: 'Uber TAXI ride 42',
      reference: 'TX-1',
      amountCents: 2_500,
      toPartyId: globex,
      fromPartyId: acme,
      entryDate: '2026-03-01',
    }),
    hotel: await createEntry(w, {
      description: 'Hotel Paris',
      reference: 'hp-9',
      amountCents: 40_000,
      toPartyId: initech,
      fromPartyId: acme,
      baseCurrency: 'EUR',
      entryDate: '2026-03-03',
    }),
    salary: await createEntry(w, {
      entryType: 'INCOME',
      description: 'Consulting fee',
      reference: undefined,
      amountCents: 100_000,
      fromPartyId: umbrella,
      toPartyId: acme,
      projectId: w.projectIds[1],
      entryDate: '2026-03-02',
    }),
    bare: await createEntry(w, {
      description: undefined,
      reference: undefined,
      fromPartyId: undefined,
      toPartyId: undefined,
      amountCents: 1,
      entryDate: '2026-02-01',
    }),
  };
});

describe('preview: conditions', () => {
  it('text conditions are case-insensitive: contains, equals, startsWith, endsWith, matches', async () => {
    expect(await idsMatching([condition('description', 'contains', 'taxi')])).toEqual(ids('taxi'));
    expect(await idsMatching([condition('description', 'equals', 'hotel paris')])).toEqual(ids('hotel'));
    expect(await idsMatching([condition('description', 'equals', 'hotel')])).toEqual([]);
    expect(await idsMatching([condition('description', 'startsWith', 'UBER')])).toEqual(ids('taxi'));
    expect(await idsMatching([condition('description', 'endsWith', 'PARIS')])).toEqual(ids('hotel'));
    expect(await idsMatching([condition('description', 'matches', '^uber\\s+taxi\\b.*\\d+$')])).toEqual(ids('taxi'));
    expect(await idsMatching([condition('reference', 'startsWith', 'HP-')])).toEqual(ids('hotel'));
    expect(await idsMatching([condition('reference', 'matches', '^tx-\\d$')])).toEqual(ids('taxi'));
  });

  it('counterparty: the from-party name for INCOME, the to-party name for EXPENSE', async () => {
    expect(await idsMatching([condition('counterparty', 'equals', 'globex')])).toEqual(ids('taxi'));
    expect(await idsMatching([condition('counterparty', 'equals', 'umbrella')])).toEqual(ids('salary'));
    // Acme is the from-party of the expenses and the to-party of the income: never their counterparty
    expect(await idsMatching([condition('counterparty', 'contains', 'acme')])).toEqual([]);
  });

  it('amountCents: eq, gt, gte, lt, lte, between (inclusive)', async () => {
    expect(await idsMatching([condition('amountCents', 'eq', 2_500)])).toEqual(ids('taxi'));
    expect(await idsMatching([condition('amountCents', 'gt', 40_000)])).toEqual(ids('salary'));
    expect(await idsMatching([condition('amountCents', 'gte', 40_000)])).toEqual(ids('hotel', 'salary'));
    expect(await idsMatching([condition('amountCents', 'lt', 2_500)])).toEqual(ids('bare'));
    expect(await idsMatching([condition('amountCents', 'lte', 2_500)])).toEqual(ids('taxi', 'bare'));
    expect(await idsMatching([condition('amountCents', 'between', [2_500, 40_000])])).toEqual(ids('taxi', 'hotel'));
  });

  it('entryType eq; baseCurrency, projectId and partyId (either side) eq and in', async () => {
    expect(await idsMatching([condition('entryType', 'eq', 'INCOME')])).toEqual(ids('salary'));
    expect(await idsMatching([condition('baseCurrency', 'eq', 'EUR')])).toEqual(ids('hotel'));
    expect(await idsMatching([condition('baseCurrency', 'in', ['EUR', 'GBP'])])).toEqual(ids('hotel'));
    expect(await idsMatching([condition('projectId', 'eq', w.projectIds[1])])).toEqual(ids('salary'));
    expect(await idsMatching([condition('projectId', 'in', w.projectIds)])).toEqual(ids('taxi', 'hotel', 'salary', 'bare'));
    expect(await idsMatching([condition('partyId', 'eq', w.parties[0])])).toEqual(ids('taxi', 'hotel', 'salary'));
    expect(await idsMatching([condition('partyId', 'in', [w.parties[1], w.parties[2]])])).toEqual(ids('taxi', 'hotel'));
  });

  it('match ALL needs every condition, ANY one of them', async () => {
    const two = [condition('description', 'contains', 'taxi'), condition('amountCents', 'gt', 10_000)];
    expect(await idsMatching(two, 'ALL')).toEqual([]);
    expect(await idsMatching(two, 'ANY')).toEqual(ids('taxi', 'hotel', 'salary'));
  });
});

describe('preview: results', () => {
  it('newest entryDate first; matched counts every match, items at most limit; date range', async () => {
    const all = await preview(w, { conditions: [condition('amountCents', 'gte', 1)], actions: KEEP, limit: 2 });
    expect(all.matched).toBe(4);
    expect(all.items.map((i) => i.entryId)).toEqual([e.hotel.id, e.salary.id]);
    const march = await preview(w, {
      conditions: [condition('amountCents', 'gte', 1)],
      actions: KEEP,
      fromDate: '2026-03-01',
      toDate: '2026-03-02',
    });
    expect(march.items.map((i) => i.entryId)).toEqual([e.salary.id, e.taxi.id]);
    expect(march.matched).toBe(2);
    const noLimit = await preview(w, { conditions: [condition('amountCents', 'gte', 1)], actions: KEEP });
    expect(noLimit.items).toHaveLength(4); // default 20
    const body = { workspaceId: w.workspaceId, conditions: [condition('amountCents', 'gte', 1)], actions: KEEP };
    expectErrorBody(await api.post('/rules/preview', { ...body, limit: 101 }, { token: w.token }), 400, 'BAD_REQUEST');
    expectErrorBody(
      await api.post('/rules/preview', { ...body, fromDate: '2026-03-02', toDate: '2026-03-01' }, { token: w.token }),
      400,
      'BAD_REQUEST',
    );
    expectErrorBody(
      await api.post('/rules/preview', { ...body, actions: [{ type: 'SET_PROJECT', projectId: 999_999 }] }, { token: w.token }),
      400,
      'BAD_REQUEST',
    );
  });

  it('each item carries the changes the actions would make, as {field: {from, to}}', async () => {
    const result = await preview(w, {
      conditions: [condition('description', 'contains', 'taxi')],
      actions: [
        { type: 'SET_CATEGORY', categoryId: w.categories[0] },
        { type: 'ADD_TAGS', tagIds: [w.tags[1], w.tags[0]] },
        { type: 'SET_PROJECT', projectId: w.projectIds[1] },
        { type: 'SET_PARTY', partyId: w.parties[3] },
        { type: 'SET_EXCLUDE_FROM_SYNC', value: true },
        { type: 'SET_DESCRIPTION', description: 'Taxi' },
        { type: 'REQUEST_DOCUMENT', documentName: 'Receipt', documentType: 'BASIS' },
      ],
    });
    expect(result.items).toEqual([
      {
        entryId: e.taxi.id,
        changes: {
          categoryId: { from: null, to: w.categories[0] },
          tagIds: { from: [], to: [...w.tags].sort((a, b) => a - b) },
          projectId: { from: w.projectIds[0], to: w.projectIds[1] },
          toPartyId: { from: w.parties[1], to: w.parties[3] }, // EXPENSE: the counterparty is the to-party
          excludeFromSync: { from: false, to: true },
          description: { from: 'Uber TAXI ride 42', to: 'Taxi' },
          documentsRequested: [{ documentName: 'Receipt', documentType: 'BASIS' }],
        },
      },
    ]);
    // INCOME: the counterparty is the from-party
    const income = await preview(w, {
      conditions: [condition('entryType', 'eq', 'INCOME')],
      actions: [{ type: 'SET_PARTY', partyId: w.parties[2] }],
    });
    expect(income.items).toEqual([{ entryId: e.salary.id, changes: { fromPartyId: { from: w.parties[3], to: w.parties[2] } } }]);
    // a matching entry the actions leave as it is: listed, with no changes
    const same = await preview(w, {
      conditions: [condition('entryType', 'eq', 'INCOME')],
      actions: [{ type: 'SET_PARTY', partyId: w.parties[3] }],
    });
    expect(same).toEqual({ matched: 1, items: [{ entryId: e.salary.id, changes: {} }] });
  });

  it('leaves out VOIDED and CANCELLED entries, and changes nothing', async () => {
    const voided = await entryIn(w, 'VOIDED', { description: 'taxi voided' });
    const cancelled = await entryIn(w, 'CANCELLED', { description: 'taxi cancelled' });
    const rejected = await entryIn(w, 'REJECTED', { description: 'taxi rejected' });
    const before = await ledgerState(w.workspaceId);
    const result = await preview(w, {
      conditions: [condition('description', 'contains', 'taxi')],
      actions: [
        { type: 'SET_CATEGORY', categoryId: w.categories[1] },
        { type: 'ADD_TAGS', tagIds: [w.tags[0]] },
        { type: 'REQUEST_DOCUMENT', documentName: 'Receipt', documentType: 'BASIS' },
      ],
    });
    const seen = result.items.map((i) => i.entryId);
    expect(seen).toContain(rejected.id);
    expect(seen).toContain(e.taxi.id);
    expect(seen).not.toContain(voided.id);
    expect(seen).not.toContain(cancelled.id);
    expect(result.matched).toBe(2);
    expect(await ledgerState(w.workspaceId)).toEqual(before);
  });
});
