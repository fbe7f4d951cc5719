import { beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../shared/permissions.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { ENTRY_KEYS, expectOk } from '../support/entries.js';
import { actor, addProjectMember, closePeriod, createKey, entryWorld, makeTag, type EntryWorld } from '../support/factories/index.js';
import { createRecurring, occurrences, postRecurring, run } from './helpers.js';

/** CONTRACT §25: recurring entries over HTTP. */
const RECURRING_KEYS = [
  'createdAt',
  'createdBy',
  'endDate',
  'id',
  'isActive',
  'nextOccurrence',
  'projectId',
  'rrule',
  'startDate',
  'template',
  'updatedAt',
  'workspaceId',
];

let api: Api;
let w: EntryWorld;
let other: EntryWorld;
beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api, { projects: 2 });
  other = await entryWorld(api);
});

const entriesOf = async (id: string) => {
  const res = await api.get('/entries', {
    token: w.token,
    query: { workspaceId: w.workspaceId, limit: 100, sortBy: 'entryDate', sortOrder: 'ASC' },
  });
  expectOk(res, 'list entries');
  return (res.body.items as any[]).filter((e) => e.recurringEntryId === id);
};

describe('recurring entries: create, read, update, deactivate', () => {
  it('creates one with exactly the contract fields; its template shown whole, its next occurrence the first rule date', async () => {
    const r = await createRecurring(w, { startDate: '2026-01-15', endDate: '2026-12-31' });
    expect(Object.keys(r).sort()).toEqual(RECURRING_KEYS);
    expect(r).toMatchObject({
      workspaceId: w.workspaceId,
      projectId: w.projectId,
      rrule: 'FREQ=MONTHLY;BYMONTHDAY=1',
      startDate: '2026-01-15',
      endDate: '2026-12-31',
      isActive: true,
      nextOccurrence: '2026-02-01', // 2026-01-15 is not a date of the rule: not itself an occurrence
      createdBy: w.userId,
      template: {
        entryType: 'EXPENSE',
        amountCents: 150_000,
        baseCurrency: 'USD',
        fromPartyId: null,
        toPartyId: w.parties[1],
        description: 'Office rent',
        reference: null,
        categoryId: null,
        tagIds: [],
      },
    });
    const got = await api.get(`/recurring-entries/${r.id}`, { token: w.token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(r);
  });

  it('lists a workspace’s recurring entries paged, by project too', async () => {
    const ws = await entryWorld(api, { projects: 2 });
    const a = await createRecurring(ws);
    const b = await createRecurring(ws, { projectId: ws.projectIds[1] });
    const all = await api.get('/recurring-entries', { token: ws.token, query: { workspaceId: ws.workspaceId } });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 2, limit: 20, offset: 0 });
    expect(all.body.items.map((r: any) => r.id)).toEqual([a.id, b.id]);
    const second = await api.get('/recurring-entries', {
      token: ws.token,
      query: { workspaceId: ws.workspaceId, projectId: ws.projectIds[1] },
    });
    expect(second.body.items.map((r: any) => r.id)).toEqual([b.id]);
    const paged = await api.get('/recurring-entries', { token: ws.token, query: { workspaceId: ws.workspaceId, limit: 1, offset: 1 } });
    expect(paged.body).toMatchObject({ total: 2, items: [{ id: b.id }] });
  });

  it('refuses an RRULE part §25 does not allow, naming it, and wrong values', async () => {
    for (const [rrule, named] of [
      ['FREQ=HOURLY', 'FREQ'],
      ['FREQ=DAILY;BYHOUR=9', 'BYHOUR'],
      ['DTSTART=20260101;FREQ=DAILY', 'DTSTART'],
      ['FREQ=WEEKLY;WKST=SU', 'WKST'],
      ['FREQ=MONTHLY;BYWEEKNO=3', 'BYWEEKNO'],
      ['FREQ=WEEKLY;BYDAY=1MO', 'BYDAY'],
      ['FREQ=MONTHLY;BYDAY=XX', 'BYDAY'],
      ['FREQ=MONTHLY;BYMONTHDAY=32', 'BYMONTHDAY'],
      ['FREQ=YEARLY;BYMONTH=13', 'BYMONTH'],
      ['FREQ=MONTHLY;COUNT=3;UNTIL=20261231', 'COUNT'],
      ['INTERVAL=2', 'FREQ'],
      ['FREQ=DAILY;INTERVAL=0', 'INTERVAL'],
      ['FREQ=DAILY;UNTIL=20260230', 'UNTIL'],
      // valid parts that can never produce a date: refused before the recurrence library searches to the year 9999
      ['FREQ=DAILY;BYSETPOS=366;BYDAY=MO', 'BYSETPOS'],
      ['FREQ=WEEKLY;BYDAY=MO,TU;BYSETPOS=3', 'BYSETPOS'],
      ['FREQ=MONTHLY;BYDAY=MO;BYSETPOS=-32', 'BYSETPOS'],
      ['FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30', 'BYMONTHDAY'],
      ['FREQ=WEEKLY;BYMONTH=4,6;BYMONTHDAY=-31', 'BYMONTHDAY'],
      ['FREQ=DAILY;INTERVAL=14;BYDAY=FR', 'BYDAY'],
      // a contradiction no rule above names (a Monday and a Tuesday both the 1st in one week): the search for its
      // first date runs off the event loop and is stopped
      ['FREQ=WEEKLY;BYDAY=MO,TU;BYMONTHDAY=1;BYSETPOS=2', 'found none'],
    ]) {
      const res = await postRecurring(w, { rrule });
      expectErrorBody(res, 400, 'BAD_REQUEST');
      expect(res.body.message, rrule).toContain(named);
    }
  });

  it('searches a rule’s first date off the event loop: a rare rule is taken, a contradiction refused while the instance answers', async () => {
    // a Monday 29 February: the first from 2026 is in 2044
    const rare = await createRecurring(w, { rrule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO', startDate: '2026-01-01' });
    expect(rare.nextOccurrence).toBe('2044-02-29');
    const answered: string[] = [];
    const refused = postRecurring(w, { rrule: 'FREQ=WEEKLY;BYDAY=MO,TU;BYMONTHDAY=1;BYSETPOS=2' }).then((res) => {
      answered.push('refused');
      return res;
    });
    // the search for a date of the contradiction takes seconds of CPU: the instance answers meanwhile
    await new Promise((resolve) => setTimeout(resolve, 300));
    const health = await api.get('/healthz');
    answered.push('health');
    expect(health.status).toBe(200);
    expectErrorBody(await refused, 400, 'BAD_REQUEST');
    expect(answered).toEqual(['health', 'refused']);
  });

  it('follows POST /entries’ rules for the template: 400 for a foreign party, tag or currency; 404 for a project not seen', async () => {
    expectErrorBody(await postRecurring(w, { template: { toPartyId: other.parties[0] } }), 400, 'BAD_REQUEST');
    const foreignTag = await makeTag(api, other.token, other.workspaceId, 'foreign');
    expectErrorBody(await postRecurring(w, { template: { tagIds: [foreignTag] } }), 400, 'BAD_REQUEST');
    expectErrorBody(await postRecurring(w, { template: { baseCurrency: 'XTS' } }), 400, 'BAD_REQUEST');
    expectErrorBody(await postRecurring(w, { template: { amountCents: 0 } }), 400, 'BAD_REQUEST');
    expectErrorBody(await postRecurring(w, { endDate: '2025-12-31' }), 400, 'BAD_REQUEST');
    expectErrorBody(await postRecurring(w, { projectId: other.projectId }), 404, 'NOT_FOUND');
  });

  it('needs entry.create to write; another workspace’s recurring entry is a 404; project members see their projects only', async () => {
    const r = await createRecurring(w);
    const reader = await actor(api, { workspaceId: w.workspaceId, permissions: PERMISSIONS.filter((p) => p !== 'entry.create') });
    expectErrorBody(await postRecurring(w, {}, reader.token), 403, 'FORBIDDEN');
    expectErrorBody(await api.post(`/recurring-entries/${r.id}/run`, {}, { token: reader.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.patch(`/recurring-entries/${r.id}`, { isActive: false }, { token: reader.token }), 403, 'FORBIDDEN');
    expectErrorBody(await api.del(`/recurring-entries/${r.id}`, { token: reader.token }), 403, 'FORBIDDEN');
    expect((await api.get(`/recurring-entries/${r.id}`, { token: reader.token })).status).toBe(200);

    for (const [method, path] of [
      ['GET', `/recurring-entries/${r.id}`],
      ['PATCH', `/recurring-entries/${r.id}`],
      ['DELETE', `/recurring-entries/${r.id}`],
      ['GET', `/recurring-entries/${r.id}/occurrences?from=2026-01-01&to=2026-01-31`],
      ['POST', `/recurring-entries/${r.id}/run`],
    ] as const) {
      const res = await api.request(method, path, { token: other.token, body: method === 'GET' || method === 'DELETE' ? undefined : {} });
      expectErrorBody(res, 404, 'NOT_FOUND');
    }
    expectErrorBody(await api.get('/recurring-entries', { token: other.token, query: { workspaceId: w.workspaceId } }), 403, 'FORBIDDEN');

    const inSecond = await createRecurring(w, { projectId: w.projectIds[1] });
    const member = await actor(api);
    await addProjectMember(w.projectIds[1], member.id);
    const seen = await api.get('/recurring-entries', { token: member.token, query: { workspaceId: w.workspaceId } });
    expect(seen.status).toBe(200);
    expect(seen.body.items.map((x: any) => x.id)).toEqual([inSecond.id]);
    expectErrorBody(await api.get(`/recurring-entries/${r.id}`, { token: member.token }), 404, 'NOT_FOUND');
  });
});

describe('occurrences: made as POST /entries makes them, once', () => {
  it('run makes every due occurrence oldest first, with recurringEntryId, occurrenceDate and the creator; a second run makes none', async () => {
    const ws = await entryWorld(api);
    const r = await createRecurring(ws, { rrule: 'FREQ=MONTHLY;BYMONTHDAY=1', startDate: '2026-01-01' });
    const made = await run(ws, r.id, '2026-04-15');
    expect(made).toMatchObject({ created: 4, skipped: 0 });
    expect(made.entryIds).toHaveLength(4);
    const res = await api.get('/entries', {
      token: ws.token,
      query: { workspaceId: ws.workspaceId, sortBy: 'entryDate', sortOrder: 'ASC' },
    });
    const entries = res.body.items as any[];
    expect(entries.map((e) => [e.entryDate, e.occurrenceDate, e.recurringEntryId])).toEqual(
      ['2026-01-01', '2026-02-01', '2026-03-01', '2026-04-01'].map((d) => [d, d, r.id]),
    );
    expect(Object.keys(entries[0]).sort()).toEqual(ENTRY_KEYS);
    expect(entries[0]).toMatchObject({
      entryStatus: 'PENDING',
      entryType: 'EXPENSE',
      amountCents: 150_000,
      toPartyId: ws.parties[1],
      description: 'Office rent',
      createdBy: ws.userId,
      amountBaseCents: 150_000,
    });
    const events = await api.get(`/entries/${entries[0].id}/events`, { token: ws.token });
    expect(events.body[0]).toMatchObject({ kind: 'ENTRY_CREATED', actorType: 'USER', actorId: ws.userId });
    expect(await run(ws, r.id, '2026-04-15')).toEqual({ created: 0, skipped: 0, entryIds: [] });
    expect((await api.get(`/recurring-entries/${r.id}`, { token: ws.token })).body.nextOccurrence).toBe('2026-05-01');
  });

  it('run refuses a future date (400); without `through` it runs up to today', async () => {
    const r = await createRecurring(w, { rrule: 'FREQ=YEARLY', startDate: '2020-03-01' });
    expectErrorBody(await api.post(`/recurring-entries/${r.id}/run`, { through: '2999-01-01' }, { token: w.token }), 400, 'BAD_REQUEST');
    const today = new Date().toISOString().slice(0, 10);
    const expected = Number(today.slice(0, 4)) - 2020 + (today.slice(5) >= '03-01' ? 1 : 0);
    expect((await run(w, r.id)).created).toBe(expected);
  });

  it('lists occurrences of a range: CREATED with the entry, SCHEDULED not yet made; BYMONTHDAY=31 skips shorter months', async () => {
    const ws = await entryWorld(api);
    const r = await createRecurring(ws, { rrule: 'FREQ=MONTHLY;BYMONTHDAY=31', startDate: '2026-01-01' });
    const made = await run(ws, r.id, '2026-03-31');
    expect(made.created).toBe(2); // Jan 31, Mar 31: February has no 31st
    const list = await occurrences(ws, r.id, '2026-01-01', '2026-08-31');
    expect(list).toEqual([
      { occurrenceDate: '2026-01-31', status: 'CREATED', entryId: made.entryIds[0], reason: null },
      { occurrenceDate: '2026-03-31', status: 'CREATED', entryId: made.entryIds[1], reason: null },
      { occurrenceDate: '2026-05-31', status: 'SCHEDULED', entryId: null, reason: null },
      { occurrenceDate: '2026-07-31', status: 'SCHEDULED', entryId: null, reason: null },
      { occurrenceDate: '2026-08-31', status: 'SCHEDULED', entryId: null, reason: null },
    ]);
    const last = await occurrences(ws, r.id, '2027-01-01', '2027-12-31'); // the future alike, -1 = last day elsewhere
    expect(last.map((o) => o.occurrenceDate)).toHaveLength(7);
    expectErrorBody(
      await api.get(`/recurring-entries/${r.id}/occurrences`, { token: ws.token, query: { from: '2026-01-01', to: '2027-01-02' } }),
      400,
      'BAD_REQUEST',
    );
    expectErrorBody(
      await api.get(`/recurring-entries/${r.id}/occurrences`, { token: ws.token, query: { from: '2026-02-01', to: '2026-01-01' } }),
      400,
      'BAD_REQUEST',
    );
  });

  it('an occurrence in a closed period, or one the create refuses, is SKIPPED with the reason and never retried', async () => {
    const ws = await entryWorld(api);
    await closePeriod(api, ws.token, ws.workspaceId, '2026-02-01', '2026-02-28');
    const tag = await makeTag(api, ws.token, ws.workspaceId, 'rent');
    const r = await createRecurring(ws, { rrule: 'FREQ=MONTHLY;BYMONTHDAY=-1', startDate: '2026-01-01', template: { tagIds: [tag] } });
    expect(await run(ws, r.id, '2026-02-28')).toMatchObject({ created: 1, skipped: 1 });
    await api.del(`/tags/${tag}`, { token: ws.token }); // archived: the create refuses it now
    expect(await run(ws, r.id, '2026-03-31')).toMatchObject({ created: 0, skipped: 1 });
    const list = await occurrences(ws, r.id, '2026-01-01', '2026-04-30');
    expect(list.map((o) => [o.occurrenceDate, o.status])).toEqual([
      ['2026-01-31', 'CREATED'],
      ['2026-02-28', 'SKIPPED'],
      ['2026-03-31', 'SKIPPED'],
      ['2026-04-30', 'SCHEDULED'],
    ]);
    expect(list[1].reason).toMatch(/closed/i);
    expect(list[2].reason).toMatch(/Tag/);
    expect(list[1].entryId).toBeNull();
    expect(await run(ws, r.id, '2026-03-31')).toMatchObject({ created: 0, skipped: 0 }); // not retried
  });

  it('runs the rules whose trigger is RECURRING, and not the others', async () => {
    const ws = await entryWorld(api);
    const rule = (name: string, triggers: string[], description: string) =>
      api.post(
        '/rules',
        {
          workspaceId: ws.workspaceId,
          name,
          priority: triggers.includes('RECURRING') ? 1 : 0,
          conditions: [{ field: 'description', operator: 'contains', value: 'rent' }],
          actions: [{ type: 'SET_DESCRIPTION', description }],
          triggers,
        },
        { token: ws.token },
      );
    expectOk(await rule('Only new by hand', ['CREATE'], 'by hand'), 'rule');
    expectOk(await rule('Recurring', ['RECURRING'], 'Rent (automatic)'), 'rule');
    const r = await createRecurring(ws);
    const made = await run(ws, r.id, '2026-01-01');
    const entry = await api.get(`/entries/${made.entryIds[0]}`, { token: ws.token });
    expect(entry.body.description).toBe('Rent (automatic)');
    const events = await api.get(`/entries/${made.entryIds[0]}/events`, { token: ws.token });
    expect(events.body.map((e: any) => e.kind)).toContain('RULE_APPLIED');
  });

  it('a PATCH applies to occurrences not made yet; DELETE deactivates and keeps the entries made', async () => {
    const ws = await entryWorld(api);
    const r = await createRecurring(ws);
    await run(ws, r.id, '2026-02-01');
    const patched = await api.patch(
      `/recurring-entries/${r.id}`,
      { template: { entryType: 'EXPENSE', amountCents: 160_000, baseCurrency: 'USD' } },
      { token: ws.token },
    );
    expect(patched.status).toBe(200);
    expect(patched.body.template).toMatchObject({ amountCents: 160_000, toPartyId: null, description: null });
    expectErrorBody(await api.patch(`/recurring-entries/${r.id}`, { rrule: 'FREQ=SECONDLY' }, { token: ws.token }), 400, 'BAD_REQUEST');
    await run(ws, r.id, '2026-03-01');
    const res = await api.get('/entries', {
      token: ws.token,
      query: { workspaceId: ws.workspaceId, sortBy: 'entryDate', sortOrder: 'ASC' },
    });
    expect(res.body.items.map((e: any) => e.amountCents)).toEqual([150_000, 150_000, 160_000]);

    const gone = await api.del(`/recurring-entries/${r.id}`, { token: ws.token });
    expect(gone.status).toBe(200);
    expect(gone.body).toMatchObject({ isActive: false, nextOccurrence: null });
    expect(await run(ws, r.id, '2026-06-01')).toMatchObject({ created: 0 });
    const after = await api.get('/entries', { token: ws.token, query: { workspaceId: ws.workspaceId } });
    expect(after.body.total).toBe(3);
    expect((await occurrences(ws, r.id, '2026-01-01', '2026-06-30')).map((o) => o.status)).toEqual(['CREATED', 'CREATED', 'CREATED']);
  });

  it('made through an API key: createdBy null, the entries attributed to the key (CONTRACT §19)', async () => {
    const ws = await entryWorld(api);
    const key = await createKey(api, ws.token, { workspaceId: ws.workspaceId, permissions: ['entry.create'] });
    const r = await createRecurring(ws, {}, key.apiKey);
    expect(r.createdBy).toBeNull();
    const made = await run(ws, r.id, '2026-01-01');
    const entry = await api.get(`/entries/${made.entryIds[0]}`, { token: ws.token });
    expect(entry.body.createdBy).toBeNull();
    const events = await api.get(`/entries/${made.entryIds[0]}/events`, { token: ws.token });
    expect(events.body[0]).toMatchObject({ actorType: 'API_KEY', actorId: key.id });
  });

  it('entries made by the recurring entry are listed by it', async () => {
    const r = await createRecurring(w, { startDate: '2026-05-01', endDate: '2026-06-30' });
    await run(w, r.id, '2026-07-01');
    expect((await entriesOf(r.id)).map((e) => e.occurrenceDate)).toEqual(['2026-05-01', '2026-06-01']);
  });
});
