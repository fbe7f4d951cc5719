import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import {
  createEntry,
  createCategory,
  createConnection,
  createIntegration,
  condition,
  createRule,
  ruleWorld,
  type RuleWorld,
} from '../support/factories/index.js';
import { events, getEntry } from '../support/entries.js';
import { ingest } from '../integrations/helpers.js';
import { review } from '../accounting/reviews/review-support.js';
import { transaction } from '../../server/db/database.js';
import { ledger, presentEntry, SYSTEM } from '../../server/domains/entries/index.js';

/**
 * CONTRACT §16 on new entries: the active rules of the trigger run in priority order inside the
 * creating transaction, each seeing the changes of the ones before; a matching rule records
 * RULE_APPLIED; stopProcessing ends the run; the entry returned already carries the changes.
 * And the entry's own categoryId (§5): create, edit, detail, the default of a review approval.
 */

let api: Api;

beforeAll(async () => {
  api = await startServer();
});

const ruleApplied = async (w: RuleWorld, entryId: number) => (await events(w, entryId)).filter((e) => e.kind === 'RULE_APPLIED');

describe('rules on POST /entries (trigger CREATE)', () => {
  it('the created entry carries every action, and RULE_APPLIED follows ENTRY_CREATED', async () => {
    const w = await ruleWorld(api);
    const rule = await createRule(w, {
      name: 'Taxis',
      conditions: [condition('description', 'contains', 'taxi'), condition('counterparty', 'equals', 'globex')],
      actions: [
        { type: 'SET_CATEGORY', categoryId: w.categories[0] },
        { type: 'ADD_TAGS', tagIds: [w.tags[1]] },
        { type: 'SET_PROJECT', projectId: w.projectIds[1] },
        { type: 'SET_PARTY', partyId: w.parties[3] },
        { type: 'SET_EXCLUDE_FROM_SYNC', value: true },
        { type: 'SET_DESCRIPTION', description: 'Taxi' },
        { type: 'REQUEST_DOCUMENT', documentName: 'Receipt', documentType: 'BASIS' },
      ],
    });
    // EXPENSE: the counterparty is the to-party (Globex)
    const entry = await createEntry(w, { description: 'Airport TAXI', toPartyId: w.parties[1], tagIds: [w.tags[0]] });
    expect(entry).toMatchObject({
      categoryId: w.categories[0],
      projectId: w.projectIds[1],
      toPartyId: w.parties[3],
      fromPartyId: w.parties[0],
      excludeFromSync: true,
      description: 'Taxi',
      isComplete: false,
    });
    const detail = await getEntry(w, entry.id);
    expect(detail.tags.map((t: { id: number }) => t.id).sort()).toEqual([...w.tags].sort());
    expect(detail.documents.map((d: any) => [d.documentName, d.documentType, d.status])).toEqual([['Receipt', 'BASIS', 'REQUESTED']]);
    const log = await events(w, entry.id);
    expect(log.map((e) => e.kind)).toEqual(['ENTRY_CREATED', 'RULE_APPLIED', 'DOCUMENT_REQUESTED']);
    expect(log[1].data).toEqual({
      ruleId: rule.id,
      ruleName: 'Taxis',
      changes: {
        categoryId: { from: null, to: w.categories[0] },
        tagIds: { from: [w.tags[0]], to: [...w.tags].sort((a, b) => a - b) },
        projectId: { from: w.projectIds[0], to: w.projectIds[1] },
        toPartyId: { from: w.parties[1], to: w.parties[3] },
        excludeFromSync: { from: false, to: true },
        description: { from: 'Airport TAXI', to: 'Taxi' },
        documentsRequested: [{ documentName: 'Receipt', documentType: 'BASIS' }],
      },
    });
    expect([log[1].actorType, log[1].actorId]).toEqual(['USER', w.userId]);
    expect((await api.get(`/entries/${entry.id}/events/verify`, { token: w.token })).body.valid).toBe(true);
    // no match: no change, no event
    const other = await createEntry(w, { description: 'Airport taxi', toPartyId: w.parties[2] });
    expect(other.categoryId).toBeNull();
    expect(await ruleApplied(w, other.id)).toEqual([]);
  });

  it('priority order, each rule seeing the changes before it; stopProcessing of a matching rule ends the run', async () => {
    const w = await ruleWorld(api);
    const second = await createRule(w, {
      name: 'second',
      priority: 20,
      conditions: [condition('description', 'equals', 'cleaned')],
      actions: [{ type: 'ADD_TAGS', tagIds: [w.tags[0]] }],
      stopProcessing: true,
    });
    const first = await createRule(w, {
      name: 'first',
      priority: 10,
      conditions: [condition('description', 'startsWith', 'raw')],
      actions: [{ type: 'SET_DESCRIPTION', description: 'cleaned' }],
    });
    await createRule(w, {
      name: 'never reached',
      priority: 30,
      conditions: [condition('amountCents', 'gte', 1)],
      actions: [{ type: 'SET_CATEGORY', categoryId: w.categories[1] }],
    });
    await createRule(w, {
      name: 'stops but does not match',
      priority: 5,
      conditions: [condition('reference', 'equals', 'nothing-like-this')],
      actions: [{ type: 'SET_CATEGORY', categoryId: w.categories[0] }],
      stopProcessing: true,
    });
    await createRule(w, { name: 'inactive', priority: 1, isActive: false, conditions: [condition('amountCents', 'gte', 1)] });
    const entry = await createEntry(w, { description: 'raw text' });
    expect(entry.description).toBe('cleaned');
    expect(entry.categoryId).toBeNull();
    expect((await getEntry(w, entry.id)).tags.map((t: { id: number }) => t.id)).toEqual([w.tags[0]]);
    expect((await ruleApplied(w, entry.id)).map((e) => e.data.ruleId)).toEqual([first.id, second.id]);
    // an entry the first rule does not touch reaches the catch-all
    const plain = await createEntry(w, { description: 'something else' });
    expect(plain.categoryId).toBe(w.categories[1]);
  });

  it('runs only the rules of its trigger; a new or changed rule applies to the next create', async () => {
    const w = await ruleWorld(api);
    const ingestOnly = await createRule(w, {
      triggers: ['INGEST'],
      conditions: [condition('description', 'equals', 'feed')],
      actions: [{ type: 'SET_CATEGORY', categoryId: w.categories[0] }],
    });
    expect((await createEntry(w, { description: 'feed' })).categoryId).toBeNull();
    expect((await api.patch(`/rules/${ingestOnly.id}`, { triggers: ['CREATE', 'INGEST'] }, { token: w.token })).status).toBe(200);
    expect((await createEntry(w, { description: 'feed' })).categoryId).toBe(w.categories[0]);
    expect((await api.del(`/rules/${ingestOnly.id}`, { token: w.token })).status).toBe(200);
    expect((await createEntry(w, { description: 'feed' })).categoryId).toBeNull();
  });

  it('an action naming a category deactivated since is left out; the create succeeds', async () => {
    const w = await ruleWorld(api);
    const category = await createCategory(w, { name: 'Short-lived' });
    await createRule(w, {
      conditions: [condition('description', 'equals', 'paper')],
      actions: [
        { type: 'SET_CATEGORY', categoryId: category.id },
        { type: 'SET_EXCLUDE_FROM_SYNC', value: true },
      ],
    });
    expect((await api.del(`/accounting/categories/${category.id}`, { token: w.token })).status).toBe(200);
    const entry = await createEntry(w, { description: 'paper' });
    expect([entry.categoryId, entry.excludeFromSync]).toEqual([null, true]);
  });
});

describe('rules on a bank line (trigger BANK)', () => {
  it('ledger.create with trigger BANK: the counterparty is the bank line’s, and only BANK rules run', async () => {
    const w = await ruleWorld(api);
    const bank = await createRule(w, {
      triggers: ['BANK'],
      conditions: [condition('counterparty', 'startsWith', 'LYFT')],
      actions: [{ type: 'SET_CATEGORY', categoryId: w.categories[0] }],
    });
    await createRule(w, {
      triggers: ['CREATE', 'INGEST'],
      conditions: [condition('amountCents', 'gte', 1)],
      actions: [{ type: 'SET_EXCLUDE_FROM_SYNC', value: true }],
    });
    const create = (bankCounterparty: string) =>
      transaction(async (tx) =>
        presentEntry(
          await ledger.create(
            tx,
            {
              workspaceId: w.workspaceId,
              projectId: w.projectId,
              entryType: 'EXPENSE',
              amountCents: 1_500,
              baseCurrency: 'USD',
              entryDate: '2026-03-03',
              toPartyId: w.parties[1],
              createdBy: null,
            },
            SYSTEM,
            undefined,
            { trigger: 'BANK', bankCounterparty },
          ),
        ),
      );
    const lyft = await create('LYFT *RIDE 4411');
    expect([lyft.categoryId, lyft.excludeFromSync]).toEqual([w.categories[0], false]);
    expect((await ruleApplied(w, lyft.id)).map((e) => [e.data.ruleId, e.actorType])).toEqual([[bank.id, 'SYSTEM']]);
    // the to-party (Globex) is not what BANK rules read
    expect((await create('GLOBEX LTD')).categoryId).toBeNull();
  });
});

describe('rules on ingest (trigger INGEST)', () => {
  it('a batch is ruled in memory: each created entry carries its changes and its RULE_APPLIED events (actor INTEGRATION)', async () => {
    const w = await ruleWorld(api);
    const a = await createRule(w, {
      priority: 1,
      conditions: [condition('counterparty', 'matches', '^shop\\s+\\d+$')],
      actions: [{ type: 'SET_CATEGORY', categoryId: w.categories[0] }],
    });
    const b = await createRule(w, {
      priority: 2,
      triggers: ['INGEST'],
      conditions: [condition('amountCents', 'between', [100, 199])],
      actions: [{ type: 'ADD_TAGS', tagIds: [w.tags[1]] }],
    });
    const integration = await createIntegration(api, w.token, { workspaceId: w.workspaceId, name: 'Feed' });
    const entries = Array.from({ length: 40 }, (_, i) => ({
      externalId: `x${i}`,
      projectId: w.projectId,
      entryType: 'EXPENSE',
      amountCents: 100 + i * 5,
      baseCurrency: 'USD',
      entryDate: '2026-02-10',
      toParty: { name: i % 2 ? `Shop ${i}` : `Market ${i}` },
      tagNames: i === 3 ? ['from-feed'] : undefined,
    }));
    const res = await ingest(api, integration.body.apiKey, { entries });
    expect(res.status, res.text).toBe(200);
    expect(res.body.created).toBe(40);
    for (const [i, result] of res.body.results.entries()) {
      const detail = await getEntry(w, result.entryId);
      const applied = await ruleApplied(w, result.entryId);
      const expected = [...(i % 2 ? [a.id] : []), ...(100 + i * 5 <= 199 ? [b.id] : [])];
      expect(applied.map((e) => e.data.ruleId)).toEqual(expected);
      for (const e of applied) expect([e.actorType, e.actorId]).toEqual(['INTEGRATION', integration.body.id]);
      expect(detail.categoryId).toBe(i % 2 ? w.categories[0] : null);
      expect(detail.tags.some((t: { id: number }) => t.id === w.tags[1])).toBe(100 + i * 5 <= 199);
      if (i === 3) expect(detail.tags.map((t: { name: string }) => t.name).sort()).toEqual(['from-feed', 'rule-b']);
    }
    expect((await api.get(`/entries/${res.body.results[3].entryId}/events/verify`, { token: w.token })).body.valid).toBe(true);
  });
});

describe('the entry categoryId (CONTRACT §5, §16)', () => {
  it('create and PATCH take an active category of the workspace (400 otherwise); the detail shows it', async () => {
    const w = await ruleWorld(api);
    const other = await ruleWorld(api);
    const entry = await createEntry(w, { categoryId: w.categories[0] });
    expect(entry.categoryId).toBe(w.categories[0]);
    expect((await getEntry(w, entry.id)).categoryId).toBe(w.categories[0]);
    const patched = await api.patch(`/entries/${entry.id}`, { categoryId: w.categories[1] }, { token: w.token });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.categoryId).toBe(w.categories[1]);
    const updated = (await events(w, entry.id)).at(-1)!;
    expect([updated.kind, updated.data.changes]).toEqual(['ENTRY_UPDATED', { categoryId: { from: w.categories[0], to: w.categories[1] } }]);
    expect((await api.patch(`/entries/${entry.id}`, { categoryId: null }, { token: w.token })).body.categoryId).toBeNull();
    const retired = await createCategory(w, { name: 'Retired' });
    expect((await api.del(`/accounting/categories/${retired.id}`, { token: w.token })).status).toBe(200);
    const post = (categoryId: string) =>
      api.post(
        '/entries',
        { projectId: w.projectId, entryType: 'EXPENSE', amountCents: 100, baseCurrency: 'USD', entryDate: '2026-01-15', categoryId },
        { token: w.token },
      );
    for (const bad of [other.categories[0], retired.id, '00000000-0000-4000-8000-000000000000']) {
      expectErrorBody(await post(bad), 400, 'BAD_REQUEST');
      expectErrorBody(await api.patch(`/entries/${entry.id}`, { categoryId: bad }, { token: w.token }), 400, 'BAD_REQUEST');
    }
    expect((await getEntry(w, entry.id)).categoryId).toBeNull();
  });

  it('is the default categoryId of a review approval', async () => {
    const w = await ruleWorld(api);
    await createConnection(w, { requireReview: true });
    await createRule(w, {
      conditions: [condition('description', 'equals', 'laptop')],
      actions: [{ type: 'SET_CATEGORY', categoryId: w.categories[1] }],
    });
    const entry = await createEntry(w, { description: 'laptop' });
    expect([entry.categoryId, entry.entryStatus]).toEqual([w.categories[1], 'UNDER_REVIEW']);
    const reviews = await api.get('/accounting/reviews', { token: w.token, query: { workspaceId: w.workspaceId, entryId: entry.id } });
    const approved = await review.approve({ ...w, connection: null }, reviews.body.items[0].id);
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body.categoryId).toBe(w.categories[1]);
    // an explicit categoryId still wins
    const second = await createEntry(w, { description: 'laptop' });
    const queued = await api.get('/accounting/reviews', { token: w.token, query: { workspaceId: w.workspaceId, entryId: second.id } });
    const explicit = await review.approve({ ...w, connection: null }, queued.body.items[0].id, { categoryId: w.categories[0] });
    expect(explicit.body.categoryId).toBe(w.categories[0]);
  });
});
