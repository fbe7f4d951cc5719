import { QueryTypes } from 'sequelize';
import { beforeAll, describe, expect, it } from 'vitest';
import { CommitGroup, type GroupPiece, type PieceOutcome } from '../../server/db/commit-group.js';
import { asPreview, db, transaction, withFirstTransactionHook, type Transaction } from '../../server/db/database.js';
import { AppError } from '../../server/lib/errors.js';
import { currentVia, runVia } from '../../server/lib/via.js';
import { createCommits } from '../../server/domains/entries/entries.service.js';
import { actor, addProjectMember, buildParty, buildWorkspace, closePeriod } from '../support/factories/index.js';
import { createConnection, accountingWorld } from '../support/factories/accounting.js';
import { createRule, ruleWorld } from '../support/factories/rules.js';
import { makeTag } from '../support/factories/tags.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { agentKey, call, connectAgent, type Preview } from '../mcp/support.js';

/**
 * Group commit (issue 35): creates that arrive while every lane is busy are written together, set-based, in one
 * transaction, each keeping its own outcome. The lanes are held shut here by a gate, so the grouping does not
 * depend on timing.
 */
const txid = async (tx: Transaction) =>
  Number((await db().query<{ x: string }>('SELECT txid_current()::text AS x', { type: QueryTypes.SELECT, transaction: tx }))[0].x);

const probe = (tx: Transaction | undefined, label: string) =>
  db().query('INSERT INTO group_commit_probe (label) VALUES (:label)', { replacements: { label }, transaction: tx });

const probes = async () =>
  (await db().query<{ label: string }>('SELECT label FROM group_commit_probe ORDER BY label', { type: QueryTypes.SELECT })).map(
    (r) => r.label,
  );

/** Holds every lane of `group` busy (once it is idle) until `release` is called. */
async function holdLanes(group: CommitGroup<any, any>, lanes: number): Promise<{ release: () => void; done: Promise<unknown> }> {
  await expect.poll(() => group.busyLanes + group.queued, { timeout: 20_000, interval: 5 }).toBe(0);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const done = Promise.all(Array.from({ length: lanes }, () => group.hold(gate)));
  expect([group.busyLanes, group.queued]).toEqual([lanes, 0]);
  return { release, done };
}

async function untilQueued(group: CommitGroup<any, any>, n: number): Promise<void> {
  await expect.poll(() => group.queued, { timeout: 20_000, interval: 5 }).toBe(n);
}

/** Starts every send while createCommits' lanes are held, so that all of them wait and are written together; their answers, in order. */
async function sentTogether<T>(sends: (() => Promise<T>)[]): Promise<T[]> {
  const held = await holdLanes(createCommits, 4);
  const sent = sends.map((send) => send());
  await untilQueued(createCommits, sends.length);
  held.release();
  const answers = await Promise.all(sent);
  await held.done;
  return answers;
}

/** A POST /entries body: an EXPENSE in USD. */
const expense = (projectId: number, entryDate: string, amountCents: number, description: string) => ({
  projectId,
  entryType: 'EXPENSE',
  baseCurrency: 'USD',
  entryDate,
  amountCents,
  description,
});

/** What a test piece asks of the writer: its label is probed; `refuse` is its own error; `alone` asks to be written alone. */
type Job = { label: string; refuse?: boolean; alone?: boolean; fail?: boolean };

/** A commit group over a probe table: together, each piece probes its label and answers the shared transaction's id. */
function probeGroup(maxItems = 16, calls: string[][] = []) {
  return new CommitGroup<Job, string>({
    name: 'test',
    lanes: 1,
    maxItems,
    alone: (job) =>
      transaction(async (tx) => {
        if (job.refuse) throw new AppError('CONFLICT', `${job.label} is refused`);
        await probe(tx, `alone:${job.label}`);
        return `alone:${job.label}:${currentVia() ?? 'none'}`;
      }),
    together: async (tx: Transaction, pieces: GroupPiece<Job>[]): Promise<PieceOutcome<string>[]> => {
      calls.push(pieces.map((p) => p.input.label));
      const id = await txid(tx);
      const outcomes: PieceOutcome<string>[] = [];
      for (const p of pieces) {
        if (p.input.fail) throw new Error('the shared statement failed');
        if (p.input.refuse) outcomes.push({ error: new AppError('CONFLICT', `${p.input.label} is refused`) });
        else if (p.input.alone) outcomes.push({ alone: true });
        else {
          await probe(tx, `together:${p.input.label}`);
          await p.markCommitted(tx);
          outcomes.push({ value: `${id}:${p.inContext(() => currentVia() ?? 'none')}` });
        }
      }
      return outcomes;
    },
  });
}

beforeAll(async () => {
  await db().query('CREATE TABLE IF NOT EXISTS group_commit_probe (label text NOT NULL)');
});

describe('CommitGroup', () => {
  it('requests that waited for a lane are written together in one transaction; one that finds a lane free is written alone', async () => {
    await db().query('TRUNCATE group_commit_probe');
    const calls: string[][] = [];
    const group = probeGroup(16, calls);
    expect(await group.run({ label: 'first' })).toBe('alone:first:none');
    const held = await holdLanes(group, 1);
    const waiting = ['a', 'b', 'c', 'd', 'e'].map((label) => group.run({ label }));
    await untilQueued(group, 5);
    held.release();
    const shared = await Promise.all(waiting);
    expect(new Set(shared).size).toBe(1);
    expect(calls).toEqual([['a', 'b', 'c', 'd', 'e']]);
    expect(await probes()).toEqual(['alone:first', 'together:a', 'together:b', 'together:c', 'together:d', 'together:e']);
    expect(group.stats).toMatchObject({ groups: 1, largest: 5, fallbacks: 0 });
  });

  it('carries at most maxItems per transaction', async () => {
    const calls: string[][] = [];
    const group = probeGroup(3, calls);
    const held = await holdLanes(group, 1);
    const waiting = Array.from({ length: 7 }, (_, n) => group.run({ label: `j${n}` }));
    await untilQueued(group, 7);
    held.release();
    const ids = await Promise.all(waiting);
    expect(calls).toEqual([
      ['j0', 'j1', 'j2'],
      ['j3', 'j4', 'j5'],
    ]);
    expect(ids[6]).toBe('alone:j6:none');
    expect(new Set(ids.slice(0, 6)).size).toBe(2);
  });

  it('each piece keeps its outcome: a refused one gets its own error and leaves no mark, the others commit together, one left alone is written alone', async () => {
    await db().query('TRUNCATE group_commit_probe');
    const group = probeGroup();
    const held = await holdLanes(group, 1);
    const hookRuns: string[] = [];
    const marked = (label: string, job: Job) =>
      withFirstTransactionHook(
        async (tx) => {
          hookRuns.push(label);
          await probe(tx, `mark:${label}`);
        },
        () => group.run(job),
      );
    const sent = [
      marked('ok', { label: 'ok' }),
      marked('bad', { label: 'bad', refuse: true }),
      marked('solo', { label: 'solo', alone: true }),
    ];
    await untilQueued(group, 3);
    held.release();
    const [ok, bad, solo] = await Promise.allSettled(sent);
    expect(ok).toMatchObject({ status: 'fulfilled' });
    expect(bad).toMatchObject({ status: 'rejected', reason: { message: 'bad is refused' } });
    expect(solo).toMatchObject({ status: 'fulfilled', value: 'alone:solo:none' });
    expect(await probes()).toEqual(['alone:solo', 'mark:ok', 'mark:solo', 'together:ok']);
    expect(hookRuns).toEqual(['ok', 'solo']);
    expect(group.stats).toMatchObject({ groups: 1, fallbacks: 0 });
  });

  it('when the shared write fails, nothing of it commits and every request is written again alone, its mark with it', async () => {
    await db().query('TRUNCATE group_commit_probe');
    const group = probeGroup();
    const held = await holdLanes(group, 1);
    const hookRuns: string[] = [];
    const first = withFirstTransactionHook(
      async (tx) => {
        hookRuns.push('first');
        await probe(tx, 'mark:first');
      },
      () => group.run({ label: 'first' }),
    );
    const failing = group.run({ label: 'second', fail: true });
    await untilQueued(group, 2);
    held.release();
    expect(await Promise.all([first, failing])).toEqual(['alone:first:none', 'alone:second:none']);
    expect(await probes()).toEqual(['alone:first', 'alone:second', 'mark:first']);
    expect(hookRuns).toEqual(['first', 'first']);
    expect(group.stats).toMatchObject({ groups: 0, fallbacks: 1 });
  });

  it('runs each piece in its caller’s async context, and never groups a preview', async () => {
    await db().query('TRUNCATE group_commit_probe');
    const calls: string[][] = [];
    const group = probeGroup(16, calls);
    const held = await holdLanes(group, 1);
    const viaMcp = runVia('mcp', () => group.run({ label: 'agent' }));
    const plain = group.run({ label: 'person' });
    await untilQueued(group, 2);
    held.release();
    const [a, b] = await Promise.all([viaMcp, plain]);
    expect([a.split(':')[1], b.split(':')[1]]).toEqual(['mcp', 'none']);
    const held2 = await holdLanes(group, 1);
    const preview = asPreview(() => group.run({ label: 'preview' }));
    expect(group.queued).toBe(0); // not waiting for the held lane: written alone, and rolled back
    held2.release();
    expect((await preview).settled).toMatchObject({ status: 'fulfilled', value: 'alone:preview:none' });
    expect(await probes()).toEqual(['together:agent', 'together:person']);
    expect(calls).toHaveLength(1);
  });
});

describe('POST /entries under group commit', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startServer();
  });

  const countEntries = async (ws: number) =>
    Number(
      (
        await db().query<{ n: string }>('SELECT count(*) AS n FROM entries WHERE workspace_id = :ws', {
          replacements: { ws },
          type: QueryTypes.SELECT,
        })
      )[0].n,
    );

  it('concurrent creates are written together, each with its own status, actor, idempotency record and response; a bad one fails no other', async () => {
    const ws = await buildWorkspace({ projects: 1 });
    const other = await buildWorkspace({ projects: 1 });
    const [alice, bob] = [await actor(api, { workspaceId: ws.id }), await actor(api, { workspaceId: ws.id })];
    const foreignParty = await buildParty(other.id);
    await closePeriod(api, alice.token, ws.id, '2025-01-01', '2025-01-31');
    const body = (n: number, extra: Record<string, unknown> = {}) => ({
      projectId: ws.projectIds[0],
      entryType: 'EXPENSE',
      baseCurrency: 'USD',
      entryDate: '2026-03-01',
      amountCents: 100 + n,
      description: `grouped ${n}`,
      ...extra,
    });
    type Req = { who: typeof alice; body: Record<string, unknown>; key?: string; expect: number };
    const reqs: Req[] = Array.from({ length: 20 }, (_, n) => ({ who: n % 2 ? bob : alice, body: body(n), expect: 200 }));
    reqs[3] = { who: alice, body: body(3, { fromPartyId: foreignParty.id }), expect: 400 };
    reqs[11] = { who: bob, body: body(11, { entryDate: '2025-01-15' }), expect: 409 };
    reqs[16] = { who: alice, body: body(16, { projectId: other.projectIds[0] }), expect: 404 };
    for (const n of [5, 6, 14]) reqs[n].key = `group-${ws.id}-${n}`;
    reqs[7].key = `group-${ws.id}-7`;
    reqs[3].key = `group-${ws.id}-3`;

    const before = { ...createCommits.stats };
    const res = await sentTogether(
      reqs.map((r) => () => api.post('/entries', r.body, { token: r.who.token, headers: r.key ? { 'Idempotency-Key': r.key } : {} })),
    );

    expect(res.map((r) => r.status)).toEqual(reqs.map((r) => r.expect));
    expect(res[3].body).toMatchObject({ code: 'BAD_REQUEST', message: `Party ${foreignParty.id} is not a party of this workspace` });
    expect(res[11].body.code).toBe('CONFLICT');
    expect(createCommits.stats.fallbacks).toBe(before.fallbacks);
    expect(createCommits.stats.groups).toBeGreaterThan(before.groups);
    const okReqs = reqs.filter((r) => r.expect === 200);
    const created = res.filter((r) => r.status === 200).map((r) => r.body);
    created.forEach((e, i) => expect(e).toMatchObject({ ...okReqs[i].body, entryStatus: 'PENDING', createdBy: okReqs[i].who.id }));
    const rows = await db().query<{ id: string; created_by: string; actor_id: string; n: string }>(
      `SELECT e.id::text, e.created_by::text, ev.actor_id,
              (SELECT count(*) FROM entries x WHERE x.workspace_id = e.workspace_id AND x.description = e.description)::text AS n
         FROM entries e JOIN entry_events ev ON ev.entry_id = e.id AND ev.kind = 'ENTRY_CREATED'
        WHERE e.workspace_id = :ws ORDER BY e.amount_cents`,
      { replacements: { ws: ws.id }, type: QueryTypes.SELECT },
    );
    expect(rows).toHaveLength(17);
    rows.forEach((row, i) => {
      expect(row.n).toBe('1');
      expect(row.created_by).toBe(okReqs[i].who.id);
      expect(row.actor_id).toBe(okReqs[i].who.id);
    });
    // the keyed ones replay their own response and create nothing more; the refused one replays its refusal
    for (const n of [5, 6, 7, 14, 3]) {
      const again = await api.post('/entries', reqs[n].body, { token: reqs[n].who.token, headers: { 'Idempotency-Key': reqs[n].key! } });
      expect(again.status).toBe(reqs[n].expect);
      expect(again.body).toEqual(res[n].body);
    }
    expect(await countEntries(ws.id)).toBe(17);
  });

  it('a grouped create writes what a lone create writes: items, payments, tags with ranks, valuation, events, outbound events and reviews', async () => {
    const w = await accountingWorld(api);
    await createConnection(w, { requireReview: true });
    const tags = [await makeTag(api, w.token, w.workspaceId, 'g-a'), await makeTag(api, w.token, w.workspaceId, 'g-b')];
    await api.post(
      '/webhook-endpoints',
      { workspaceId: w.workspaceId, url: 'https://hooks.example.com/in', eventTypes: [] },
      { token: w.token },
    );
    const bodyOf = (n: number) => ({
      projectId: w.projectId,
      entryType: n % 2 ? 'INCOME' : 'EXPENSE',
      baseCurrency: 'USD',
      entryDate: '2026-04-0' + (1 + (n % 9)),
      amountCents: 300,
      description: `same ${n}`,
      reference: `REF-${n}`,
      fromPartyId: w.parties[n % 4],
      tagIds: n % 2 ? [tags[1], tags[0]] : [tags[0]],
      items: [
        { description: 'one', quantity: 1, unitAmountCents: 100, amountCents: 100 },
        { description: 'two', quantity: 2, unitAmountCents: 100, amountCents: 200 },
      ],
      transactions: [{ transactionDate: '2026-04-10', amountCents: 300, method: 'card', externalRef: `tx-${n}` }],
    });
    const alone = [];
    for (let n = 0; n < 3; n++) alone.push((await api.post('/entries', bodyOf(n), { token: w.token })).body);
    const grouped = (await sentTogether([0, 1, 2].map((n) => () => api.post('/entries', bodyOf(n), { token: w.token })))).map(
      (r) => r.body,
    );

    const written = async (id: number) => {
      const detail = (await api.get(`/entries/${id}`, { token: w.token })).body;
      const events = (await api.get(`/entries/${id}/events`, { token: w.token })).body;
      const outbox = await db().query<{ type: string; data: any }>(
        `SELECT type, data FROM webhook_events WHERE workspace_id = :ws AND type LIKE 'entry.%' AND data->'object'->>'id' = :id ORDER BY created_at`,
        { replacements: { ws: w.workspaceId, id: String(id) }, type: QueryTypes.SELECT },
      );
      const ranks = await db().query('SELECT tag_id, tag_rank, tag_count FROM entry_tags WHERE entry_id = :id ORDER BY tag_id', {
        replacements: { id },
        type: QueryTypes.SELECT,
      });
      return { detail, events, outbox, ranks };
    };
    const scrub = (x: unknown): unknown =>
      JSON.parse(JSON.stringify(x), (k, v) =>
        ['id', 'entryId', 'createdAt', 'updatedAt', 'hash', 'prevHash', 'uploadedAt', 'reviewId'].includes(k) ? '…' : v,
      );
    for (let n = 0; n < 3; n++) {
      expect(grouped[n].entryStatus).toBe('UNDER_REVIEW');
      const [a, g] = [await written(alone[n].id), await written(grouped[n].id)];
      expect(g.events.map((e: any) => e.kind)).toEqual(['ENTRY_CREATED', 'REVIEW_QUEUED', 'STATUS_CHANGED']);
      expect(g.outbox.map((e) => e.type)).toEqual(['entry.created', 'entry.status_changed']);
      expect(scrub(g)).toEqual(scrub(a));
      expect(scrub(grouped[n])).toEqual(scrub(alone[n]));
    }
    const xmins = await db().query<{ xmin: string }>('SELECT DISTINCT xmin::text FROM entries WHERE id IN (:ids)', {
      replacements: { ids: grouped.map((e) => e.id) },
      type: QueryTypes.SELECT,
    });
    expect(xmins.length).toBeLessThan(3);
  });

  it('a grouped create that takes a budget line past its amount publishes budget.exceeded once, with the books posted', async () => {
    const ws = await buildWorkspace({ projects: 1 });
    const owner = await actor(api, { workspaceId: ws.id });
    const budget = await api.post(
      '/budgets',
      {
        workspaceId: ws.id,
        name: 'Plan',
        period: 'MONTH',
        startDate: '2026-03-01',
        periods: 1,
        lines: [{ entryType: 'EXPENSE', amountCents: 1_000 }],
      },
      { token: owner.token },
    );
    expect(budget.status).toBe(200);
    // 4 × 300 = 1,200 of a 1,000 budget, all written in one shared transaction
    const res = await sentTogether(
      [0, 1, 2, 3].map(
        (n) => () => api.post('/entries', expense(ws.projectIds[0], '2026-03-0' + (n + 1), 300, `plan ${n}`), { token: owner.token }),
      ),
    );
    expect(res.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const events = await api.get('/webhook-events', { token: owner.token, query: { workspaceId: ws.id, type: 'budget.exceeded' } });
    expect(events.status).toBe(200);
    expect(events.body.items.map((e: any) => [e.data.object.budgetId, e.data.object.period, e.data.object.actualCents])).toEqual([
      [budget.body.id, '2026-03', 1_200],
    ]);
    const tb = await api.get('/ledger/trial-balance', { token: owner.token, query: { workspaceId: ws.id, asOf: '2026-03-31' } });
    expect(tb.status).toBe(200);
    expect(tb.body.totals).toMatchObject({ debitCents: 1_200, creditCents: 1_200 });
  });

  it('rules run on each grouped create; one whose rule requests a document is written in the same transaction, its request after its insert', async () => {
    const w = await ruleWorld(api);
    await createRule(w, {
      name: 'taxi',
      conditions: [{ field: 'description', operator: 'contains', value: 'taxi' }],
      actions: [
        { type: 'SET_CATEGORY', categoryId: w.categories[0] },
        { type: 'ADD_TAGS', tagIds: [w.tags[1]] },
      ],
    });
    await createRule(w, {
      name: 'receipt',
      conditions: [{ field: 'description', operator: 'contains', value: 'hotel' }],
      actions: [{ type: 'REQUEST_DOCUMENT', documentName: 'Receipt', documentType: 'BASIS' }],
    });
    const [taxi, hotel, lunch] = await sentTogether(
      ['taxi ride', 'hotel night', 'lunch'].map(
        (d) => () => api.post('/entries', expense(w.projectId, '2026-05-01', 4200, d), { token: w.token }),
      ),
    );
    expect([taxi.status, hotel.status, lunch.status]).toEqual([200, 200, 200]);
    const tagsOf = async (id: number) => (await api.get(`/entries/${id}`, { token: w.token })).body.tags.map((t: any) => t.id);
    expect(taxi.body.categoryId).toBe(w.categories[0]);
    expect(await tagsOf(taxi.body.id)).toEqual([w.tags[1]]);
    expect(lunch.body.categoryId).toBeNull();
    expect(await tagsOf(lunch.body.id)).toEqual([]);
    const kinds = async (id: number) => (await api.get(`/entries/${id}/events`, { token: w.token })).body.map((e: any) => e.kind);
    expect(await kinds(taxi.body.id)).toEqual(['ENTRY_CREATED', 'RULE_APPLIED']);
    expect(await kinds(hotel.body.id)).toEqual(['ENTRY_CREATED', 'RULE_APPLIED', 'DOCUMENT_REQUESTED']);
    expect(await kinds(lunch.body.id)).toEqual(['ENTRY_CREATED']);
    const xmin = async (id: number) =>
      (
        await db().query<{ x: string }>('SELECT xmin::text AS x FROM entries WHERE id = :id', {
          replacements: { id },
          type: QueryTypes.SELECT,
        })
      )[0].x;
    expect(await xmin(taxi.body.id)).toBe(await xmin(lunch.body.id));
    expect(await xmin(hotel.body.id)).toBe(await xmin(taxi.body.id));
    const requested = await api.get(`/entries/${hotel.body.id}/documents`, { token: w.token });
    expect(requested.body.map((d: any) => [d.documentName, d.status])).toEqual([['Receipt', 'REQUESTED']]);
  });

  it("a rule's SET_PROJECT out of the writer's reach is that request's 403 (project member, project-scoped key), grouped or alone", async () => {
    const w = await ruleWorld(api);
    const [reachable, elsewhere] = w.projectIds;
    await createRule(w, {
      name: 'move',
      conditions: [{ field: 'description', operator: 'contains', value: 'move' }],
      actions: [{ type: 'SET_PROJECT', projectId: elsewhere }],
    });
    const member = await actor(api);
    await addProjectMember(reachable, member.id);
    const key = await api.post(
      '/api-keys',
      { workspaceId: w.workspaceId, name: 'one project', permissions: ['entry.create'], projectIds: [reachable] },
      { token: w.token },
    );
    expect(key.status).toBe(200);
    const body = (description: string) => expense(reachable, '2026-05-02', 700, description);
    const sends = [
      { token: member.token, description: 'member move', status: 403 },
      { token: key.body.apiKey as string, description: 'key move', status: 403 },
      { token: member.token, description: 'member stays', status: 200 },
      { token: w.token, description: 'workspace member move', status: 200 },
    ];
    const before = { ...createCommits.stats };
    const grouped = await sentTogether(sends.map((s) => () => api.post('/entries', body(`${s.description} grouped`), { token: s.token })));
    expect(createCommits.stats.groups).toBeGreaterThan(before.groups);
    const alone = [];
    for (const s of sends) alone.push(await api.post('/entries', body(`${s.description} alone`), { token: s.token }));
    for (const answers of [grouped, alone]) {
      expect(answers.map((r) => r.status)).toEqual(sends.map((s) => s.status));
      for (const refused of answers.slice(0, 2)) {
        expectErrorBody(refused, 403, 'FORBIDDEN');
        expect(refused.body.message).toBe(`A rule moves this entry to project ${elsewhere}, outside the projects you may write in`);
      }
      expect(answers[2].body.projectId).toBe(reachable);
      expect(answers[3].body.projectId).toBe(elsewhere);
    }
    const written = await db().query<{ description: string; project_id: number }>(
      'SELECT description, project_id FROM entries WHERE workspace_id = :ws ORDER BY description',
      { replacements: { ws: w.workspaceId }, type: QueryTypes.SELECT },
    );
    expect(written).toEqual([
      { description: 'member stays alone', project_id: reachable },
      { description: 'member stays grouped', project_id: reachable },
      { description: 'workspace member move alone', project_id: elsewhere },
      { description: 'workspace member move grouped', project_id: elsewhere },
    ]);
  });

  it('an MCP confirm written in a group keeps its own transport: its events say via mcp, the REST ones beside it do not', async () => {
    const ws = await buildWorkspace({ projects: 1 });
    const person = await actor(api, { workspaceId: ws.id });
    const agent = await connectAgent(api, await agentKey(api, person, ws.id));
    const body = (description: string) => expense(ws.projectIds[0], '2026-05-03', 900, description);
    const { confirmToken } = (await call(agent, 'createEntry', body('by the agent'))) as Preview;
    const created = await sentTogether([
      () => call(agent, 'createEntry', { ...body('by the agent'), confirm: confirmToken }),
      () => api.post('/entries', body('by REST 1'), { token: person.token }).then((r) => r.body),
      () => api.post('/entries', body('by REST 2'), { token: person.token }).then((r) => r.body),
    ]);
    expect(created.map((e) => e.description)).toEqual(['by the agent', 'by REST 1', 'by REST 2']);
    const xmins = await db().query('SELECT DISTINCT xmin::text FROM entries WHERE workspace_id = :ws', {
      replacements: { ws: ws.id },
      type: QueryTypes.SELECT,
    });
    expect(xmins).toHaveLength(1); // one transaction wrote the three
    const created0 = async (id: number) => (await api.get(`/entries/${id}/events`, { token: person.token })).body[0];
    const [byAgent, byRest1, byRest2] = await Promise.all(created.map((e) => created0(e.id)));
    expect(byAgent).toMatchObject({
      kind: 'ENTRY_CREATED',
      actorType: 'API_KEY',
      data: expect.objectContaining({ via: 'mcp' }),
    });
    for (const e of [byRest1, byRest2]) {
      expect(e).toMatchObject({ kind: 'ENTRY_CREATED', actorType: 'USER', actorId: person.id });
      expect(e.data).not.toHaveProperty('via');
    }
    for (const e of created) {
      expect((await api.get(`/entries/${e.id}/events/verify`, { token: person.token })).body).toMatchObject({ valid: true });
    }
  });

  it('a connection lost in the shared write: each request is written again alone, once; while the database stays away, each answers 503 (§22)', async () => {
    const ws = await buildWorkspace({ projects: 1 });
    const who = await actor(api, { workspaceId: ws.id });
    // the backend that inserts a matching entry ends its own connection (57P01, as a demoted primary does): once, or every time
    await db().query('CREATE SEQUENCE IF NOT EXISTS group_connection_kills');
    await db().query(`CREATE OR REPLACE FUNCTION group_connection_lost() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.description LIKE 'always lost %' OR (NEW.description LIKE 'lost once %' AND nextval('group_connection_kills') = 1) THEN
          PERFORM pg_terminate_backend(pg_backend_pid());
        END IF;
        RETURN NEW;
      END $$`);
    await db().query('CREATE TRIGGER group_connection_lost BEFORE INSERT ON entries FOR EACH ROW EXECUTE FUNCTION group_connection_lost()');
    const send = (description: string) =>
      api.post('/entries', expense(ws.projectIds[0], '2026-05-04', 1_100, description), {
        token: who.token,
        headers: { 'Idempotency-Key': `${ws.id}-${description}` },
      });
    const grouped = (descriptions: string[]) => sentTogether(descriptions.map((d) => () => send(d)));
    const written = async () =>
      (
        await db().query<{ description: string }>('SELECT description FROM entries WHERE workspace_id = :ws ORDER BY description', {
          replacements: { ws: ws.id },
          type: QueryTypes.SELECT,
        })
      ).map((r) => r.description);
    try {
      const once = ['lost once 1', 'lost once 2', 'lost once 3'];
      let before = { ...createCommits.stats };
      const recovered = await grouped(once);
      expect(recovered.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(createCommits.stats).toMatchObject({ groups: before.groups, fallbacks: before.fallbacks + 1 });
      expect(await written()).toEqual(once);

      const always = ['always lost 1', 'always lost 2'];
      before = { ...createCommits.stats };
      const refused = await grouped(always);
      for (const r of refused) {
        expectErrorBody(r, 503, 'SERVICE_UNAVAILABLE');
        expect(r.headers.get('retry-after')).toBe('2');
      }
      expect(createCommits.stats).toMatchObject({ groups: before.groups, fallbacks: before.fallbacks + 1 });
      expect(await written()).toEqual(once);
    } finally {
      await db().query('DROP TRIGGER group_connection_lost ON entries');
    }
    // the refused keys kept nothing: sent again, they create; the recovered ones replay their own answers
    for (const description of ['always lost 1', 'always lost 2']) expect((await send(description)).status).toBe(200);
    for (const description of ['lost once 1', 'lost once 2', 'lost once 3']) {
      const again = await send(description);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotency-replayed')).toBe('true');
    }
    expect(await written()).toEqual(['always lost 1', 'always lost 2', 'lost once 1', 'lost once 2', 'lost once 3']);
  });

  it('one client at a time: every create commits alone, as before', async () => {
    const ws = await buildWorkspace({ projects: 1 });
    const { token } = await actor(api, { workspaceId: ws.id });
    const before = { ...createCommits.stats };
    for (let n = 0; n < 4; n++) {
      const r = await api.post(
        '/entries',
        { projectId: ws.projectIds[0], entryType: 'INCOME', baseCurrency: 'USD', entryDate: '2026-03-02', amountCents: 1 + n },
        { token },
      );
      expect(r.status).toBe(200);
    }
    expect(createCommits.stats).toEqual(before);
    const xmins = await db().query('SELECT DISTINCT xmin::text FROM entries WHERE workspace_id = :ws', {
      replacements: { ws: ws.id },
      type: QueryTypes.SELECT,
    });
    expect(xmins).toHaveLength(4);
  });
});
