import { beforeAll, describe, expect, it, vi } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import { reviewReactions } from '../../server/domains/accounting/index.js';
import type { EntryRow } from '../../server/domains/entries/index.js';
import { buildParty, buildWorkspace, integrationWorld } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { expectIngestOk, ingest, item } from './helpers.js';

let api: Api;
const hookCalls: EntryRow[][] = [];
beforeAll(async () => {
  api = await startServer();
  const queue = reviewReactions.queueForNewEntries;
  vi.spyOn(reviewReactions, 'queueForNewEntries').mockImplementation(async (tx, rows) => {
    hookCalls.push(rows);
    return queue(tx, rows);
  });
});

const count = async (sql: string, replacements: Record<string, unknown>) => {
  const [row] = await db().query<{ n: number }>(sql, { replacements, type: QueryTypes.SELECT });
  return Number(row.n);
};

describe('POST /api/v1/ingest: results', () => {
  it('answers every item in request order: CREATED, DUPLICATE (same batch) and ERROR with a message', async () => {
    const w = await integrationWorld(api);
    const [p1] = w.projectIds;
    const other = await buildWorkspace();
    const entries = [
      item(p1, 'ok-1', { description: 'Coffee beans', reference: 'INV-1', entryType: 'INCOME' }),
      item(p1, 'bad-currency', { baseCurrency: 'usd' }),
      item(p1, 'zero', { amountCents: 0 }),
      item(other.projectIds[0], 'unknown-project'),
      item(999_999, 'no-such-project'),
      item(p1, 'ok-1', { amountCents: 99 }),
      { projectId: p1, entryType: 'EXPENSE', amountCents: 1, baseCurrency: 'USD', entryDate: '2026-02-10' },
      item(p1, 'extra-field', { isAdmin: true }),
      item(p1, 'bad-date', { entryDate: '2026-02-30' }),
      item(p1, 'ok-2', { amountCents: 1_000_000_000_000_000 }),
      'not an object',
      item(p1, 'too-big', { amountCents: 1_000_000_000_000_001 }),
      item(p1, 'year-zero', { entryDate: '0000-01-01' }),
      item(p1, 'broken-text', { description: 'half a pair \ud800 here' }),
    ];
    const res = await ingest(api, w.apiKey, { entries });
    expectIngestOk(res);
    expect(Object.keys(res.body).sort()).toEqual(['created', 'duplicates', 'failed', 'results']);
    const { results } = res.body;
    expect(results.map((r: { externalId: string; status: string }) => [r.externalId, r.status])).toEqual([
      ['ok-1', 'CREATED'],
      ['bad-currency', 'ERROR'],
      ['zero', 'ERROR'],
      ['unknown-project', 'ERROR'],
      ['no-such-project', 'ERROR'],
      ['ok-1', 'DUPLICATE'],
      [null, 'ERROR'],
      ['extra-field', 'ERROR'],
      ['bad-date', 'ERROR'],
      ['ok-2', 'CREATED'],
      [null, 'ERROR'],
      ['too-big', 'ERROR'],
      ['year-zero', 'ERROR'],
      ['broken-text', 'ERROR'],
    ]);
    expect(res.body).toMatchObject({ created: 2, duplicates: 1, failed: 11 });
    expect(results[0]).toEqual({ externalId: 'ok-1', status: 'CREATED', entryId: expect.any(Number) });
    expect(results[5]).toEqual({ externalId: 'ok-1', status: 'DUPLICATE', entryId: results[0].entryId });
    expect(results[1].error).toContain('baseCurrency');
    expect(results[2].error).toContain('amountCents');
    expect(results[3].error).toBe(`Project ${other.projectIds[0]} not found`);
    expect(results[4].error).toBe('Project 999999 not found');
    expect(results[6].error).toContain('externalId');
    expect(results[7].error).toContain('isAdmin');
    expect(results[8].error).toContain('entryDate');
    expect(results[12].error).toBe('entryDate: must be 0001-01-01 or later');
    expect(results[13].error).toBe('description: must be well-formed Unicode text without NUL characters');
    for (const r of results.filter((x: { status: string }) => x.status === 'ERROR')) {
      expect(Object.keys(r).sort()).toEqual(['error', 'externalId', 'status']);
      expect(r.error.length).toBeGreaterThan(0);
    }

    const entry = await api.get(`/entries/${results[0].entryId}`, { token: w.token });
    expect(entry.status).toBe(200);
    expect(entry.body).toMatchObject({
      workspaceId: w.workspaceId,
      projectId: p1,
      entrySourceId: w.integration.entrySourceId,
      entryType: 'INCOME',
      entryStatus: 'PENDING',
      amountCents: 1234,
      baseCurrency: 'USD',
      entryDate: '2026-02-10',
      description: 'Coffee beans',
      reference: 'INV-1',
      createdBy: null,
      fromPartyId: null,
      toPartyId: null,
    });
    expect(await count('SELECT count(*) AS n FROM entries WHERE workspace_id = :ws', { ws: w.workspaceId })).toBe(2);
  });

  it('records ENTRY_CREATED with actor INTEGRATION on an intact hash chain', async () => {
    const w = await integrationWorld(api);
    const res = await ingest(api, w.apiKey, { entries: [item(w.projectIds[0], 'ev-1'), item(w.projectIds[1], 'ev-2')] });
    expectIngestOk(res);
    for (const r of res.body.results) {
      const events = await api.get(`/entries/${r.entryId}/events`, { token: w.token });
      expect(events.status).toBe(200);
      expect(events.body).toHaveLength(1);
      expect(events.body[0]).toMatchObject({
        entryId: r.entryId,
        kind: 'ENTRY_CREATED',
        actorType: 'INTEGRATION',
        actorId: w.integration.id,
        data: expect.objectContaining({ externalId: r.externalId, amountCents: 1234, baseCurrency: 'USD', entryDate: '2026-02-10' }),
      });
      const verify = await api.get(`/entries/${r.entryId}/events/verify`, { token: w.token });
      expect(verify.body).toEqual({ valid: true, count: 1, firstBrokenEventId: null });
    }
    // the chain continues with events recorded the usual way
    const first = res.body.results[0].entryId;
    const noted = await api.post(`/entries/${first}/notes`, { content: 'checked' }, { token: w.token });
    expect(noted.status, noted.text).toBe(200);
    const verify = await api.get(`/entries/${first}/events/verify`, { token: w.token });
    expect(verify.body).toEqual({ valid: true, count: 2, firstBrokenEventId: null });
  });

  it('calls the new-entries reaction (review auto-queue) once per batch with every created row', async () => {
    const w = await integrationWorld(api);
    hookCalls.length = 0;
    const res = await ingest(api, w.apiKey, {
      entries: [item(w.projectIds[0], 'h-1'), item(w.projectIds[0], 'h-2'), item(w.projectIds[0], 'h-bad', { amountCents: -5 })],
    });
    expectIngestOk(res);
    // (the reaction's events carry the integration as actor: the next test)
    const ofThisWorkspace = () => hookCalls.filter((rows) => rows.some((r) => Number(r.workspace_id) === w.workspaceId));
    expect(ofThisWorkspace()).toHaveLength(1);
    expect(
      ofThisWorkspace()[0]
        .map((r) => Number(r.id))
        .sort(),
    ).toEqual(
      res.body.results
        .slice(0, 2)
        .map((r: { entryId: number }) => r.entryId)
        .sort(),
    );
    // a batch of only duplicates creates nothing and calls no reaction
    hookCalls.length = 0;
    const again = await ingest(api, w.apiKey, { entries: [item(w.projectIds[0], 'h-1')] });
    expect(again.body.results[0].status).toBe('DUPLICATE');
    expect(ofThisWorkspace()).toHaveLength(0);
  });

  it('queues a review for entries of projects covered by a requireReview connection (UNDER_REVIEW)', async () => {
    const w = await integrationWorld(api);
    const [covered, uncovered] = w.projectIds;
    const connection = await api.post(
      '/accounting/connections',
      { workspaceId: w.workspaceId, providerType: 'MANUAL', name: 'Books', credentials: {}, requireReview: true, projectIds: [covered] },
      { token: w.token },
    );
    expect(connection.status, connection.text).toBe(200);
    const res = await ingest(api, w.apiKey, { entries: [item(covered, 'rq-1'), item(uncovered, 'rq-2')] });
    expectIngestOk(res);
    const [queued, plain] = res.body.results;
    expect((await api.get(`/entries/${queued.entryId}`, { token: w.token })).body.entryStatus).toBe('UNDER_REVIEW');
    expect((await api.get(`/entries/${plain.entryId}`, { token: w.token })).body.entryStatus).toBe('PENDING');
    const events = await api.get(`/entries/${queued.entryId}/events`, { token: w.token });
    expect(events.body.map((e: { kind: string }) => e.kind)).toEqual(['ENTRY_CREATED', 'REVIEW_QUEUED', 'STATUS_CHANGED']);
    expect(
      events.body.every((e: { actorType: string; actorId: string }) => e.actorType === 'INTEGRATION' && e.actorId === w.integration.id),
    ).toBe(true);
    const verify = await api.get(`/entries/${queued.entryId}/events/verify`, { token: w.token });
    expect(verify.body).toEqual({ valid: true, count: 3, firstBrokenEventId: null });
    const reviews = await api.get('/accounting/reviews', { token: w.token, query: { workspaceId: w.workspaceId } });
    expect(reviews.status, reviews.text).toBe(200);
    expect(reviews.body.items.map((r: { entryId: number; status: string }) => [r.entryId, r.status])).toEqual([[queued.entryId, 'QUEUED']]);
  });

  it('sending a batch again returns DUPLICATE for what was written and changes nothing', async () => {
    const w = await integrationWorld(api);
    const entries = [
      item(w.projectIds[0], 'r-1', { toParty: { name: 'Fresh Supplier' }, tagNames: ['fresh-tag'] }),
      item(w.projectIds[0], 'r-2', { amountCents: 0 }),
      item(w.projectIds[1], 'r-3'),
    ];
    const first = await ingest(api, w.apiKey, { entries });
    expectIngestOk(first);
    expect(first.body).toMatchObject({ created: 2, duplicates: 0, failed: 1 });
    const snapshot = async () => ({
      entries: await count('SELECT count(*) AS n FROM entries WHERE workspace_id = :ws', { ws: w.workspaceId }),
      events: await count('SELECT count(*) AS n FROM entry_events WHERE workspace_id = :ws', { ws: w.workspaceId }),
      parties: await count('SELECT count(*) AS n FROM parties WHERE workspace_id = :ws', { ws: w.workspaceId }),
      tags: await count('SELECT count(*) AS n FROM tags WHERE workspace_id = :ws', { ws: w.workspaceId }),
    });
    const before = await snapshot();
    // the repeat may even differ in content: the externalId decides
    const second = await ingest(api, w.apiKey, { entries: [...entries.slice(0, 2), { ...entries[2], amountCents: 777 }] });
    expectIngestOk(second);
    expect(second.body).toEqual({
      created: 0,
      duplicates: 2,
      failed: 1,
      results: [
        { externalId: 'r-1', status: 'DUPLICATE', entryId: first.body.results[0].entryId },
        { externalId: 'r-2', status: 'ERROR', error: expect.stringContaining('amountCents') },
        { externalId: 'r-3', status: 'DUPLICATE', entryId: first.body.results[2].entryId },
      ],
    });
    expect(await snapshot()).toEqual(before);
    const r3 = await api.get(`/entries/${first.body.results[2].entryId}`, { token: w.token });
    expect(r3.body.amountCents).toBe(1234);
  });

  it('externalIds are per integration: another integration of the workspace may reuse them', async () => {
    const w = await integrationWorld(api);
    const second = await api.post('/integrations', { workspaceId: w.workspaceId, name: 'Other feed' }, { token: w.token });
    const a = await ingest(api, w.apiKey, { entries: [item(w.projectIds[0], 'shared-id')] });
    const b = await ingest(api, second.body.apiKey, { entries: [item(w.projectIds[0], 'shared-id')] });
    expect(a.body.results[0].status).toBe('CREATED');
    expect(b.body.results[0].status).toBe('CREATED');
    expect(b.body.results[0].entryId).not.toBe(a.body.results[0].entryId);
    const entry = await api.get(`/entries/${b.body.results[0].entryId}`, { token: w.token });
    expect(entry.body.entrySourceId).toBe(second.body.entrySourceId);
  });
});

describe('POST /api/v1/ingest: scope, periods, parties, tags', () => {
  it('refuses items for projects outside the integration scope', async () => {
    const w = await integrationWorld(api, { projects: 2, scope: (ids) => [ids[0]] });
    const res = await ingest(api, w.apiKey, { entries: [item(w.projectIds[0], 'in'), item(w.projectIds[1], 'out')] });
    expectIngestOk(res);
    expect(res.body.results[0].status).toBe('CREATED');
    expect(res.body.results[1]).toEqual({
      externalId: 'out',
      status: 'ERROR',
      error: `Project ${w.projectIds[1]} is outside this integration's project scope`,
    });
  });

  it('refuses items dated in a closed period (bounds inclusive) and takes the others', async () => {
    const w = await integrationWorld(api);
    const period = await api.post(
      '/accounting/periods',
      { workspaceId: w.workspaceId, name: 'January 2026', startDate: '2026-01-01', endDate: '2026-01-31' },
      { token: w.token },
    );
    expect(period.status, period.text).toBe(200);
    expect((await api.patch(`/accounting/periods/${period.body.id}/close`, undefined, { token: w.token })).status).toBe(200);
    const p = w.projectIds[0];
    const res = await ingest(api, w.apiKey, {
      entries: [
        item(p, 'jan-1', { entryDate: '2026-01-01' }),
        item(p, 'dec-31', { entryDate: '2025-12-31' }),
        item(p, 'jan-31', { entryDate: '2026-01-31' }),
        item(p, 'feb-1', { entryDate: '2026-02-01' }),
      ],
    });
    expectIngestOk(res);
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['ERROR', 'CREATED', 'ERROR', 'CREATED']);
    expect(res.body.results[0].error).toBe('entryDate 2026-01-01 is in the closed accounting period "January 2026"');
  });

  it('finds parties by id or by name (case-insensitive) and creates missing names once', async () => {
    const w = await integrationWorld(api);
    const existing = await api.post(
      '/parties',
      { workspaceId: w.workspaceId, name: 'Acme Ltd', partyType: 'ORGANIZATION' },
      { token: w.token },
    );
    expect(existing.status, existing.text).toBe(200);
    const foreign = await buildParty((await buildWorkspace()).id, { name: 'Foreign' });
    const p = w.projectIds[0];
    const res = await ingest(api, w.apiKey, {
      entries: [
        item(p, 'p-1', { fromParty: { name: 'acme ltd' }, toParty: { name: 'Jane Doe', partyType: 'PERSON', country: 'DE' } }),
        item(p, 'p-2', { fromParty: { id: existing.body.id }, toParty: { name: 'JANE DOE' } }),
        item(p, 'p-3', { fromParty: { id: foreign.id } }),
        item(p, 'p-4', { fromParty: { name: 'X', partyType: 'ROBOT' } }),
        item(p, 'p-5', { fromParty: { id: 1, name: 'both' } }),
      ],
    });
    expectIngestOk(res);
    const [r1, r2, r3, r4, r5] = res.body.results;
    expect([r1.status, r2.status, r3.status, r4.status, r5.status]).toEqual(['CREATED', 'CREATED', 'ERROR', 'ERROR', 'ERROR']);
    expect(r3.error).toBe(`fromParty ${foreign.id} is not a party of this workspace`);
    const e1 = await api.get(`/entries/${r1.entryId}`, { token: w.token });
    const e2 = await api.get(`/entries/${r2.entryId}`, { token: w.token });
    expect(e1.body.fromPartyId).toBe(existing.body.id);
    expect(e2.body.fromPartyId).toBe(existing.body.id);
    expect(e1.body.toPartyId).toBe(e2.body.toPartyId);
    expect(e1.body.parties.to).toMatchObject({ name: 'Jane Doe', partyType: 'PERSON', country: 'DE', workspaceId: w.workspaceId });
    const parties = await api.get('/parties', { token: w.token, query: { workspaceId: w.workspaceId } });
    expect(parties.body.map((x: { name: string }) => x.name).sort()).toEqual(['Acme Ltd', 'Jane Doe']);
  });

  it('finds tags by name (case-insensitive), creates missing ones and links them', async () => {
    const w = await integrationWorld(api);
    const food = await api.post('/tags', { workspaceId: w.workspaceId, name: 'Food' }, { token: w.token });
    expect(food.status, food.text).toBe(200);
    const res = await ingest(api, w.apiKey, {
      entries: [
        item(w.projectIds[0], 't-1', { tagNames: ['food', 'Travel', 'travel'] }),
        item(w.projectIds[0], 't-2', { tagNames: ['TRAVEL'] }),
        item(w.projectIds[0], 't-3', { tagNames: [''] }),
      ],
    });
    expectIngestOk(res);
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['CREATED', 'CREATED', 'ERROR']);
    const e1 = await api.get(`/entries/${res.body.results[0].entryId}`, { token: w.token });
    const e2 = await api.get(`/entries/${res.body.results[1].entryId}`, { token: w.token });
    expect(e1.body.tags.map((t: { name: string }) => t.name).sort()).toEqual(['Food', 'Travel']);
    expect(e2.body.tags.map((t: { name: string }) => t.name)).toEqual(['Travel']);
    expect(e1.body.tags.find((t: { name: string }) => t.name === 'Food').id).toBe(food.body.id);
    // by-tag's ranks (migration 0006), written by the ingest's insert itself
    const ranks = await count(
      `SELECT count(*) AS n FROM entry_tags et
         JOIN (SELECT entry_id, tag_id, row_number() OVER (PARTITION BY entry_id ORDER BY tag_id) AS r, count(*) OVER (PARTITION BY entry_id) AS c
                 FROM entry_tags WHERE workspace_id = :ws) f USING (entry_id, tag_id)
        WHERE et.workspace_id = :ws AND (et.tag_rank, et.tag_count) = (f.r::int, f.c::int)`,
      { ws: w.workspaceId },
    );
    expect(ranks).toBe(3);
    const tags = await api.get('/tags', { token: w.token, query: { workspaceId: w.workspaceId } });
    expect(tags.body.map((t: { name: string }) => t.name).sort()).toEqual(['Food', 'Travel']);
  });

  it('takes a full batch of 1000 items', async () => {
    const w = await integrationWorld(api);
    const entries = Array.from({ length: 1000 }, (_, i) =>
      item(w.projectIds[i % 2], `bulk-${i}`, { amountCents: i + 1, tagNames: [`bulk-${i % 5}`], toParty: { name: `Vendor ${i % 7}` } }),
    );
    const res = await ingest(api, w.apiKey, { entries });
    expectIngestOk(res);
    expect(res.body).toMatchObject({ created: 1000, duplicates: 0, failed: 0 });
    expect(await count('SELECT count(*) AS n FROM entries WHERE integration_id = :id', { id: w.integration.id })).toBe(1000);
    expect(await count('SELECT count(*) AS n FROM entry_tags WHERE workspace_id = :ws', { ws: w.workspaceId })).toBe(1000);
    expect(await count('SELECT count(*) AS n FROM entry_events WHERE workspace_id = :ws', { ws: w.workspaceId })).toBe(1000);
    expect(await count('SELECT count(*) AS n FROM parties WHERE workspace_id = :ws', { ws: w.workspaceId })).toBe(7);
    const sum = await count('SELECT sum(amount_cents) AS n FROM entries WHERE integration_id = :id', { id: w.integration.id });
    expect(sum).toBe((1000 * 1001) / 2);
  });
});

describe('POST /api/v1/ingest: envelope and key', () => {
  it('refuses a body that is not {entries: [1..1000]} with 400', async () => {
    const w = await integrationWorld(api);
    const p = w.projectIds[0];
    for (const body of [
      {},
      { entries: [] },
      { entries: 'x' },
      { entries: [item(p, 'a')], extra: 1 },
      [item(p, 'a')],
      { entries: Array.from({ length: 1001 }, (_, i) => item(p, `e-${i}`)) },
    ]) {
      expectErrorBody(await ingest(api, w.apiKey, body), 400, 'BAD_REQUEST');
    }
    const malformed = await api.request('POST', '/api/v1/ingest', {
      rawBody: '{"entries": [',
      headers: { 'X-API-Key': w.apiKey, 'Content-Type': 'application/json' },
    });
    expectErrorBody(malformed, 400, 'BAD_REQUEST');
    expect(await count('SELECT count(*) AS n FROM entries WHERE workspace_id = :ws', { ws: w.workspaceId })).toBe(0);
  });

  it('answers 401 for a missing, malformed or unknown key, with the usual error body', async () => {
    const w = await integrationWorld(api);
    const body = { entries: [item(w.projectIds[0], 'k')] };
    expectErrorBody(await ingest(api, undefined, body), 401, 'UNAUTHORIZED');
    expectErrorBody(await ingest(api, 'nonsense', body), 401, 'UNAUTHORIZED');
    const forged = `${w.integration.keyPrefix}_${'A'.repeat(40)}`;
    expectErrorBody(await ingest(api, forged, body), 401, 'UNAUTHORIZED');
    expectErrorBody(await ingest(api, `${w.apiKey}x`, body), 401, 'UNAUTHORIZED');
    // a bearer token is not an API key
    const bearer = await api.post('/api/v1/ingest', body, { token: w.token });
    expectErrorBody(bearer, 401, 'UNAUTHORIZED');
    expect(await count('SELECT count(*) AS n FROM entries WHERE workspace_id = :ws', { ws: w.workspaceId })).toBe(0);
  });
});
