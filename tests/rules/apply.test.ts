import { beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import {
  closePeriod,
  createEntry,
  entryIn,
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
import { ledgerState } from './helpers.js';

/**
 * POST /rules/{id}/apply (CONTRACT §16): a saved rule over existing entries; VOIDED, CANCELLED and
 * closed-period entries skipped; every change with its events; a SYNCED entry becomes STALE.
 */

let api: Api;
let w: RuleWorld;

beforeAll(async () => {
  api = await startServer();
  w = await ruleWorld(api);
});

const apply = async (ruleId: string, body: Record<string, unknown> = {}, world: RuleWorld = w) => {
  const res = await api.post(`/rules/${ruleId}/apply`, body, { token: world.token });
  expect(res.status, res.text).toBe(200);
  return res.body as { matched: number; changed: number; skipped: number };
};
const categoryOf = async (entryId: number) =>
  (
    await db().query<{ category_id: string | null }>('SELECT category_id FROM entries WHERE id = :id', {
      replacements: { id: entryId },
      type: QueryTypes.SELECT,
    })
  )[0].category_id;

describe('apply', () => {
  it('changes matching entries with their events, skipping VOIDED, CANCELLED, closed-period and unchanged ones', async () => {
    const ws = await ruleWorld(api);
    const pending = await createEntry(ws, { description: 'Airport taxi', entryDate: '2026-04-10' });
    const completed = await entryIn(ws, 'COMPLETED', { description: 'taxi home', entryDate: '2026-04-11' });
    const voided = await entryIn(ws, 'VOIDED', { description: 'taxi voided', entryDate: '2026-04-12' });
    const cancelled = await entryIn(ws, 'CANCELLED', { description: 'taxi cancelled', entryDate: '2026-04-12' });
    const closed = await createEntry(ws, { description: 'taxi in January', entryDate: '2026-01-10' });
    await closePeriod(api, ws.token, ws.workspaceId, '2026-01-01', '2026-01-31');
    const unrelated = await createEntry(ws, { description: 'Hotel', entryDate: '2026-04-10' });
    const rule = await createRule(ws, {
      name: 'Taxis are travel',
      conditions: [condition('description', 'contains', 'TAXI')],
      actions: [
        { type: 'SET_CATEGORY', categoryId: ws.categories[0] },
        { type: 'ADD_TAGS', tagIds: [ws.tags[0]] },
        { type: 'SET_DESCRIPTION', description: 'Taxi' },
        { type: 'REQUEST_DOCUMENT', documentName: 'Receipt', documentType: 'BASIS' },
      ],
    });
    const frozen = await Promise.all([voided, cancelled, closed].map((e) => events(ws, e.id)));

    expect(await apply(rule.id, {}, ws)).toEqual({ matched: 5, changed: 2, skipped: 3 });

    for (const e of [pending, completed]) {
      const detail = await getEntry(ws, e.id);
      expect(detail.description).toBe('Taxi');
      expect(detail.tags.map((t: { id: number }) => t.id)).toEqual([ws.tags[0]]);
      expect(detail.documents.map((d: any) => [d.documentName, d.documentType, d.status])).toEqual([['Receipt', 'BASIS', 'REQUESTED']]);
      expect(await categoryOf(e.id)).toBe(ws.categories[0]);
      const log = await events(ws, e.id);
      const kinds = log.map((x) => x.kind);
      expect(kinds.slice(-4)).toEqual(['ENTRY_UPDATED', 'TAGS_CHANGED', 'DOCUMENT_REQUESTED', 'RULE_APPLIED']);
      const [updated, tagged, , applied] = log.slice(-4);
      expect(updated.data.changes).toEqual({
        categoryId: { from: null, to: ws.categories[0] },
        description: { from: e.description, to: 'Taxi' },
      });
      expect(tagged.data).toEqual({ from: [], to: [ws.tags[0]] });
      expect(applied.data).toEqual({
        ruleId: rule.id,
        ruleName: 'Taxis are travel',
        changes: {
          categoryId: { from: null, to: ws.categories[0] },
          tagIds: { from: [], to: [ws.tags[0]] },
          description: { from: e.description, to: 'Taxi' },
          documentsRequested: [{ documentName: 'Receipt', documentType: 'BASIS' }],
        },
      });
      expect(applied.actorType).toBe('USER');
      expect(applied.actorId).toBe(ws.userId);
      const verify = await api.get(`/entries/${e.id}/events/verify`, { token: ws.token });
      expect(verify.body.valid).toBe(true);
    }
    for (const [i, e] of [voided, cancelled, closed].entries()) {
      expect(await events(ws, e.id)).toEqual(frozen[i]);
      expect(await categoryOf(e.id)).toBeNull();
    }
    expect((await getEntry(ws, unrelated.id)).description).toBe('Hotel');

    // a second apply finds nothing left to change (the description no longer matches: a narrower rule)
    const again = await createRule(ws, { conditions: [condition('description', 'equals', 'taxi')], actions: rule.actions });
    const before = await ledgerState(ws.workspaceId);
    expect(await apply(again.id, {}, ws)).toEqual({ matched: 2, changed: 0, skipped: 2 });
    expect(await ledgerState(ws.workspaceId)).toEqual(before);
  });

  it('fromDate/toDate bound the entries; a range in the wrong order is a 400', async () => {
    const ws = await ruleWorld(api);
    const march = await createEntry(ws, { description: 'fuel', entryDate: '2026-03-15' });
    const may = await createEntry(ws, { description: 'fuel', entryDate: '2026-05-15' });
    const rule = await createRule(ws, {
      conditions: [condition('description', 'equals', 'fuel')],
      actions: [{ type: 'SET_CATEGORY', categoryId: ws.categories[1] }],
    });
    expect(await apply(rule.id, { fromDate: '2026-03-01', toDate: '2026-03-31' }, ws)).toEqual({ matched: 1, changed: 1, skipped: 0 });
    expect(await categoryOf(march.id)).toBe(ws.categories[1]);
    expect(await categoryOf(may.id)).toBeNull();
    expectErrorBody(
      await api.post(`/rules/${rule.id}/apply`, { fromDate: '2026-05-01', toDate: '2026-04-01' }, { token: ws.token }),
      400,
      'BAD_REQUEST',
    );
    expectErrorBody(await api.post(`/rules/${rule.id}/apply`, { extra: 1 }, { token: ws.token }), 400, 'BAD_REQUEST');
  });

  it('SET_PROJECT, SET_PARTY (the counterparty side) and SET_EXCLUDE_FROM_SYNC; a SYNCED entry becomes STALE', async () => {
    const connection = await createConnection(w, { requireReview: false, requireCompletenessForSync: false, syncMode: 'MANUAL_PUSH' });
    const expense = await createEntry(w, {
      description: 'Cloud hosting',
      entryType: 'EXPENSE',
      fromPartyId: w.parties[0],
      toPartyId: w.parties[1],
    });
    const income = await createEntry(w, {
      description: 'Cloud resale',
      entryType: 'INCOME',
      fromPartyId: w.parties[2],
      toPartyId: w.parties[0],
    });
    const pushed = await api.post('/accounting/sync/push', { entryId: expense.id, connectionId: connection.id }, { token: w.token });
    expect(pushed.status, pushed.text).toBe(200);
    expect(pushed.body.status).toBe('SYNCED');
    const rule = await createRule(w, {
      conditions: [condition('description', 'startsWith', 'cloud')],
      actions: [
        { type: 'SET_PROJECT', projectId: w.projectIds[1] },
        { type: 'SET_PARTY', partyId: w.parties[3] },
        { type: 'SET_EXCLUDE_FROM_SYNC', value: true },
      ],
    });
    expect(await apply(rule.id)).toEqual({ matched: 2, changed: 2, skipped: 0 });
    const e1 = await getEntry(w, expense.id);
    expect([e1.projectId, e1.fromPartyId, e1.toPartyId, e1.excludeFromSync]).toEqual([w.projectIds[1], w.parties[0], w.parties[3], true]);
    const e2 = await getEntry(w, income.id);
    expect([e2.projectId, e2.fromPartyId, e2.toPartyId, e2.excludeFromSync]).toEqual([w.projectIds[1], w.parties[3], w.parties[0], true]);
    const syncs = await api.get(`/accounting/sync/entry/${expense.id}`, { token: w.token });
    expect(syncs.body.map((s: { status: string }) => s.status)).toEqual(['STALE']);
  });

  it('a rule naming a category deactivated since cannot be applied (409, nothing changes)', async () => {
    const ws = await ruleWorld(api);
    const category = await createCategory(ws, { name: 'Soon inactive' });
    await createEntry(ws, { description: 'stationery' });
    const rule = await createRule(ws, {
      conditions: [condition('description', 'equals', 'stationery')],
      actions: [{ type: 'SET_CATEGORY', categoryId: category.id }],
    });
    expect((await api.del(`/accounting/categories/${category.id}`, { token: ws.token })).status).toBe(200);
    const before = await ledgerState(ws.workspaceId);
    expectErrorBody(await api.post(`/rules/${rule.id}/apply`, {}, { token: ws.token }), 409, 'CONFLICT');
    expect(await ledgerState(ws.workspaceId)).toEqual(before);
  });

  it('works through more entries than one chunk (700 ingested entries)', async () => {
    const ws = await ruleWorld(api);
    const integration = await createIntegration(api, ws.token, { workspaceId: ws.workspaceId, name: 'Feed' });
    {
      const batch = 0;
      const entries = Array.from({ length: 700 }, (_, i) => ({
        externalId: `b${batch}-${i}`,
        projectId: ws.projectId,
        entryType: 'EXPENSE',
        amountCents: 100 + i,
        baseCurrency: 'USD',
        entryDate: `2026-0${1 + (i % 9)}-1${i % 10}`,
        description: i % 3 === 0 ? `card payment ${i}` : `transfer ${i}`,
      }));
      const res = await ingest(api, integration.body.apiKey, { entries });
      expect(res.status, res.text).toBe(200);
      expect(res.body.created).toBe(700);
    }
    const rule = await createRule(ws, {
      conditions: [condition('description', 'startsWith', 'card payment')],
      actions: [{ type: 'ADD_TAGS', tagIds: [ws.tags[1]] }],
    });
    expect(await apply(rule.id, {}, ws)).toEqual({ matched: 234, changed: 234, skipped: 0 });
    const [{ n }] = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM entry_tags WHERE tag_id = :tag', {
      replacements: { tag: ws.tags[1] },
      type: QueryTypes.SELECT,
    });
    expect(n).toBe(234);
    expect(await apply(rule.id, {}, ws)).toEqual({ matched: 234, changed: 0, skipped: 234 });
  });
});
