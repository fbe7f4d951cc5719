import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCitus, startCitusCluster, type CitusCluster } from './support/citus.js';
import { buildCrashWorld, plainClient } from './support/crash-world.js';
import type { CrashWorld } from './support/crash-load.js';
import { ADMIN, startServerProcess, type ServerProcess } from './support/server-process.js';
import { startReceiver } from '../../outbound-webhooks/receiver.js';
import { startGenericProvider, type GenericProvider } from '../../emulators/generic-provider.js';
import { onCleanup } from './support/cleanup.js';
import { CSV_MAPPING } from '../../support/factories/banking.js';

/**
 * The service on Citus (issue 50, CONTRACT §24): a coordinator and two workers on loopback
 * (Debian's PostgreSQL 15 and Citus 13.2 built from shared/vendor/citus), the real server against
 * the coordinator (it migrates at start: 0049 distributes the tenant tables). Checks: every tenant
 * table distributed by workspace and co-located, the coordinator's tables kept there; a workspace's
 * list, detail, create and trial balance statements each routed to one shard group; the append-only
 * triggers held on the shards; entries created through the service with their journal postings
 * (migration 0048 makes the books' SQL name the workspace), a refund over its cap refused and 40
 * parallel refunds held within it; an FX rate replaced; outbound webhooks claimed workspace by workspace and delivered;
 * then a third worker is added and the rebalancer (and a move of the load's own workspace) runs under
 * a write load with Idempotency-Key retries.
 * Then each route that locks one object by its id (parties, projects, tags, categories, rules, periods,
 * budgets, recurring entries, API keys, integrations, FX rates, bank accounts, connections, journal
 * reversal, a webhook endpoint's test and retry) answers 200: Citus runs a FOR UPDATE only when it names
 * the workspace. An entry's detail and related entries; an accounting push twice and the mappings' upserts (their
 * ON CONFLICT on keys 0049 widened with workspace_id); and a second server seeding a fresh distributed database
 * (the demo seed: bank imports with settlements, inbox, document and review approval, rules, a push).
 * A manual bank match created and deleted over HTTP (its settlement posted, then reversed; an unequal match a 409), the
 * match balance held by the database on the shards (migration 0051: an unbalanced change of a matched line refused at
 * commit, routed or on every shard), GET /ledger/verify (ok, every entry checked, a live settlement compared), and the
 * scheduled pulls' claimer (a BIDIRECTIONAL connection made at the start, whose one fire time passes during the file:
 * dispatched once, pulled once, no error).
 * Review approval, a document's upload and approval, and an inbox document's upload and attach, over HTTP.
 * POST /entries that arrive together: written in groups that commit (create by create on Citus), none rolled back.
 */
const t0 = Date.now();
const step = (what: string) => process.stdout.write(`[citus +${((Date.now() - t0) / 1000).toFixed(1)}s] ${what}\n`);

let cluster: CitusCluster;
let server: ServerProcess;
let w: CrashWorld;
let admin: pg.Client;
let provider: GenericProvider;
/** a BIDIRECTIONAL connection whose hourly cron fires at `fireAt` (the next whole minute): one scheduled pull is due */
let scheduled: { connectionId: string; fireAt: Date };
const PROVIDER_TOKEN = 'citus-provider-token';

beforeAll(async () => {
  step('ensuring Citus');
  await ensureCitus();
  cluster = await startCitusCluster(2);
  step('cluster up; starting the service (it migrates)');
  server = await startServerProcess(cluster.databaseUrl, { WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', ACCOUNTING_ALLOW_PRIVATE_HOSTS: 'true' });
  admin = new pg.Client({ connectionString: cluster.superUrl(cluster.coordinator) });
  await admin.connect();
  w = await buildCrashWorld(server.baseUrl);
  provider = await startGenericProvider({ token: PROVIDER_TOKEN });
  onCleanup('generic provider', () => provider.close());
  // made now, so that its fire time passes while the other tests run (the last test before the seed's checks it)
  const fireAt = new Date(Math.ceil((Date.now() + 5_000) / 60_000) * 60_000);
  const connection = await w.api.post(
    '/accounting/connections',
    {
      workspaceId: w.workspaceId,
      providerType: 'ACME_BOOKS',
      name: 'Scheduled books',
      credentials: { accessToken: PROVIDER_TOKEN },
      config: { baseUrl: provider.baseUrl },
      syncMode: 'BIDIRECTIONAL',
      syncScheduleCron: `${fireAt.getUTCMinutes()} * * * *`,
      requireReview: false,
      requireCompletenessForSync: false,
    },
    { token: w.token },
  );
  if (connection.status !== 200) throw new Error(`scheduled connection: ${connection.status} ${connection.text}`);
  scheduled = { connectionId: connection.body.id as string, fireAt };
  step('world built');
}, 1_500_000);

afterAll(async () => {
  await admin?.end();
});

const TENANT_TABLES = [
  'entries',
  'entry_events',
  'entry_links',
  'journal_transactions',
  'journal_lines',
  'ledger_balances',
  'ledger_day_balances',
  'bank_lines',
  'projects',
];
const COORDINATOR_TABLES = ['users', 'sessions', 'idempotency_keys', 'login_failures', 'schema_migrations'];

describe('the service on a Citus cluster', () => {
  it('distributes every table with a workspace_id by it, co-located with workspaces; the rest stays on the coordinator', async () => {
    const { rows } = await admin.query<{ name: string; type: string; col: string | null; colocation: number }>(
      `SELECT table_name::text AS name, citus_table_type AS type, distribution_column AS col, colocation_id AS colocation FROM citus_tables`,
    );
    const byName = new Map(rows.map((r) => [r.name, r]));
    const { rows: tenant } = await admin.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r'
          AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'workspace_id')`,
    );
    expect(tenant.length).toBeGreaterThan(35);
    for (const name of TENANT_TABLES) expect(tenant.map((t) => t.name)).toContain(name);
    const colocation = byName.get('workspaces')?.colocation;
    expect(byName.get('workspaces')).toMatchObject({ type: 'distributed', col: 'id' });
    for (const { name } of tenant) expect(byName.get(name), name).toMatchObject({ type: 'distributed', col: 'workspace_id', colocation });
    // the coordinator's tables: Citus local tables (joinable with the distributed ones), never on a worker
    for (const name of COORDINATOR_TABLES) expect(byName.get(name), name).toMatchObject({ type: 'local' });
  });

  it('routes a workspace list, detail, create and trial balance each to one shard group', async () => {
    const { api, token, workspaceId } = w;
    const plans: Record<string, string> = {
      list: `SELECT id FROM entries WHERE workspace_id = ${workspaceId} ORDER BY entry_date DESC, id DESC LIMIT 50`,
      detail: `SELECT e.id, i.id FROM entries e LEFT JOIN entry_items i ON i.entry_id = e.id AND i.workspace_id = e.workspace_id
                 WHERE e.workspace_id = ${workspaceId} AND e.id = 1`,
      create: `INSERT INTO entries (workspace_id, project_id, entry_source_id, amount_cents, entry_date, entry_type, base_currency)
               VALUES (${workspaceId}, ${w.projectId}, 1, 100, '2026-03-10', 'INCOME', 'USD')`,
      trialBalance: `SELECT l.category_id, sum(l.debit_cents) FROM journal_lines l JOIN journal_transactions t
                       ON t.id = l.transaction_id AND t.workspace_id = l.workspace_id
                      WHERE l.workspace_id = ${workspaceId} GROUP BY l.category_id`,
    };
    for (const [what, sql] of Object.entries(plans)) {
      const { rows } = await admin.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${sql}`);
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan, `${what}:\n${plan}`).toMatch(/Task Count: 1\b/);
    }
    expect((await api.get(`/entries?workspaceId=${workspaceId}`, { token })).status).toBe(200);
    const tb = await api.get(`/ledger/trial-balance?workspaceId=${workspaceId}&asOf=2026-12-31`, { token });
    expect(tb.status, tb.text).toBe(200);
  });

  it('keeps the event log and the journal append-only on the shards', async () => {
    const raw = new pg.Client({ connectionString: cluster.databaseUrl });
    await raw.connect();
    try {
      const { rows: src } = await raw.query<{ id: number }>(`SELECT id FROM entry_sources WHERE workspace_id = $1 LIMIT 1`, [
        w.workspaceId,
      ]);
      const { rows } = await raw.query<{ id: string }>(
        `INSERT INTO entries (workspace_id, project_id, entry_source_id, amount_cents, entry_date, entry_type, base_currency)
         VALUES ($1, $2, $3, 10000, '2026-03-10', 'INCOME', 'USD') RETURNING id`,
        [w.workspaceId, w.projectId, src[0]!.id],
      );
      const id = rows[0]!.id;
      await raw.query(
        `INSERT INTO entry_events (workspace_id, created_at, id, seq, entry_id, hash, kind, actor_type)
         VALUES ($1, now(), gen_random_uuid(), 1, $2, 'h', 'CREATED', 'USER')`,
        [w.workspaceId, id],
      );
      const refused = async (sql: string) => {
        const err = await raw.query(sql).then(
          () => undefined,
          (e: Error) => e,
        );
        expect(String(err), sql).toMatch(/append-only/);
      };
      await refused(`UPDATE entry_events SET seq = 2 WHERE workspace_id = ${w.workspaceId} AND entry_id = ${id}`);
      await refused(`DELETE FROM entry_events WHERE workspace_id = ${w.workspaceId} AND entry_id = ${id}`);
      await refused(`TRUNCATE entry_events`);
      await refused(`TRUNCATE journal_lines`);
      const { rows: still } = await raw.query<{ n: string }>(
        `SELECT count(*) AS n FROM entry_events WHERE workspace_id = $1 AND entry_id = $2`,
        [w.workspaceId, id],
      );
      expect(Number(still[0]!.n)).toBe(1);
    } finally {
      await raw.end();
    }
  });
});

describe('entries and refunds through the service on Citus', () => {
  const created = (res: { status: number; text: string }) => expect([200, 201], res.text).toContain(res.status);
  const newEntry = async (amountCents: number, entryType: 'INCOME' | 'EXPENSE', withItems = false) => {
    const { api, token, projectId, partyIds, tags } = w;
    const a = Math.floor(amountCents / 3);
    const res = await api.post(
      '/entries',
      {
        projectId,
        entryType,
        baseCurrency: 'USD',
        amountCents,
        entryDate: '2026-03-12',
        fromPartyId: partyIds[0],
        toPartyId: partyIds[1],
        description: `citus ${entryType}`,
        ...(withItems && {
          tagIds: tags.map((t) => t.id),
          items: [
            { description: 'first', quantity: 1, unitAmountCents: a, amountCents: a },
            { description: 'second', quantity: 1, unitAmountCents: amountCents - a, amountCents: amountCents - a },
          ],
        }),
      },
      { token },
    );
    created(res);
    return res.body as { id: number; amountCents: number; entryStatus: string };
  };
  const refund = (id: number, amountCents: number) => w.api.post(`/entries/${id}/refund`, { amountCents }, { token: w.token });
  const refundedCents = async (id: number) => {
    const { rows } = await admin.query<{ cents: string | null; n: string }>(
      `SELECT sum(r.amount_cents)::text AS cents, count(*)::text AS n FROM entry_links l
         JOIN entries r ON r.workspace_id = l.workspace_id AND r.id = l.derived_entry_id
        WHERE l.workspace_id = $1 AND l.original_entry_id = $2 AND l.link_type = 'REFUND' AND r.entry_status <> 'VOIDED'`,
      [w.workspaceId, id],
    );
    return { cents: Number(rows[0]!.cents ?? 0), count: Number(rows[0]!.n) };
  };

  it('creates entries with their journal postings: the trial balance is balanced and not empty', async () => {
    const entries = [await newEntry(12_345, 'INCOME', true), await newEntry(6_789, 'EXPENSE', true), await newEntry(500, 'INCOME')];
    const { rows } = await admin.query<{ entry_id: string; debit: string; credit: string }>(
      `SELECT l.entry_id::text, sum(l.debit_cents)::text AS debit, sum(l.credit_cents)::text AS credit FROM journal_lines l
        WHERE l.workspace_id = $1 AND l.entry_id = ANY($2::bigint[]) AND l.kind = 'ENTRY' GROUP BY l.entry_id`,
      [w.workspaceId, entries.map((e) => e.id)],
    );
    const posted = new Map(rows.map((r) => [Number(r.entry_id), r]));
    for (const e of entries)
      expect(posted.get(Number(e.id)), `entry ${e.id}`).toEqual({
        entry_id: String(e.id),
        debit: String(e.amountCents),
        credit: String(e.amountCents),
      });
    const tb = await w.api.get(`/ledger/trial-balance?workspaceId=${w.workspaceId}&asOf=2026-12-31`, { token: w.token });
    expect(tb.status, tb.text).toBe(200);
    const totals = tb.body.totals as { debitCents: number; creditCents: number };
    expect(totals.debitCents).toBeGreaterThanOrEqual(12_345 + 6_789 + 500);
    expect(totals.creditCents).toBe(totals.debitCents);
  });

  it('writes POST /entries that arrive together in one transaction, create by create, without rolling a group back first', async () => {
    const groupsOf = async (outcome: string) => {
      const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith(`commit_group_transactions_total{group="entry_create",outcome="${outcome}"}`));
      return Number(line?.split(' ').pop() ?? 0);
    };
    const before = { committed: await groupsOf('committed'), fallback: await groupsOf('fallback') };
    const amounts = Array.from({ length: 24 }, (_, i) => 1_000 + i);
    const entries = await Promise.all(amounts.map((cents, i) => newEntry(cents, i % 2 ? 'EXPENSE' : 'INCOME', i % 3 === 0)));
    expect(entries.map((e) => e.amountCents)).toEqual(amounts);
    expect(await groupsOf('committed'), 'no shared transaction committed: the requests never met in a group').toBeGreaterThan(
      before.committed,
    );
    expect(await groupsOf('fallback'), 'a group rolled back and its requests were written again alone').toBe(before.fallback);
    const { rows } = await admin.query<{ n: string }>(
      `SELECT count(DISTINCT entry_id)::text AS n FROM journal_lines WHERE workspace_id = $1 AND entry_id = ANY($2::bigint[]) AND kind = 'ENTRY'`,
      [w.workspaceId, entries.map((e) => e.id)],
    );
    expect(Number(rows[0]!.n)).toBe(entries.length);
  });

  it("delivers a workspace's outbound events: the claimer takes due deliveries workspace by workspace", async () => {
    const rx = await startReceiver();
    try {
      const ep = await w.api.post('/webhook-endpoints', { workspaceId: w.workspaceId, url: rx.url('/citus') }, { token: w.token });
      expect(ep.status, ep.text).toBe(200);
      const entry = await newEntry(4_321, 'INCOME');
      const [req] = await rx.waitFor('/citus', 1, 30_000);
      const body = JSON.parse(req!.body) as { type: string; workspaceId: number; data: { object: { id: number } } };
      expect(body).toMatchObject({ type: 'entry.created', workspaceId: w.workspaceId, data: { object: { id: entry.id } } });
      expect(req!.headers['webhook-signature']).toMatch(/^v1,/);
      // the outcome is written back on the delivery's shard
      await expect
        .poll(
          async () => {
            const { rows } = await admin.query<{ status: string }>(
              `SELECT status FROM webhook_deliveries WHERE workspace_id = $1 AND endpoint_id = $2`,
              [w.workspaceId, ep.body.id],
            );
            return rows.map((r) => r.status);
          },
          { timeout: 15_000 },
        )
        .toEqual(['SUCCEEDED']);
    } finally {
      await rx.close();
    }
  });

  it('replaces an FX rate of the same currency and date (the upsert runs on the shard)', async () => {
    const put = (rate: string) =>
      w.api.post('/fx-rates', { workspaceId: w.workspaceId, currency: 'EUR', rateDate: '2026-03-02', rate }, { token: w.token });
    const first = await put('1.08');
    expect(first.status, first.text).toBe(200);
    const second = await put('1.0875');
    expect(second.status, second.text).toBe(200);
    expect(second.body).toMatchObject({ id: first.body.id, rate: '1.0875', createdAt: first.body.createdAt });
    const { rows } = await admin.query<{ n: string; replaced: boolean }>(
      `SELECT count(*)::text AS n, bool_and(updated_at > created_at) AS replaced FROM fx_rates
        WHERE workspace_id = $1 AND currency = 'EUR' AND rate_date = '2026-03-02'`,
      [w.workspaceId],
    );
    expect(rows[0]).toEqual({ n: '1', replaced: true });
  });

  it('refunds within the cap and refuses a refund over it (409)', async () => {
    const original = await newEntry(10_000, 'INCOME');
    const first = await refund(original.id, 6_000);
    created(first);
    const over = await refund(original.id, 4_001);
    expect(over.status, over.text).toBe(409);
    created(await refund(original.id, 4_000));
    expect(await refundedCents(original.id)).toEqual({ cents: 10_000, count: 2 });
    // fully refunded: the original is VOIDED in the refund's transaction
    const { rows } = await admin.query<{ status: string }>(
      `SELECT entry_status AS status FROM entries WHERE workspace_id = $1 AND id = $2`,
      [w.workspaceId, original.id],
    );
    expect(rows[0]?.status).toBe('VOIDED');
  });

  it('edits an entry: its posting is reversed and the new amount posted', async () => {
    const entry = await newEntry(2_000, 'EXPENSE');
    const edited = await w.api.patch(`/entries/${entry.id}`, { amountCents: 2_500, description: 'edited on Citus' }, { token: w.token });
    expect(edited.status, edited.text).toBe(200);
    const { rows } = await admin.query<{ kind: string; debit: string }>(
      `SELECT t.kind, sum(l.debit_cents)::text AS debit FROM journal_transactions t
         JOIN journal_lines l ON l.workspace_id = t.workspace_id AND l.transaction_id = t.id
        WHERE t.workspace_id = $1 AND t.entry_id = $2 GROUP BY t.id, t.kind ORDER BY t.id`,
      [w.workspaceId, entry.id],
    );
    expect(rows).toEqual([
      { kind: 'ENTRY', debit: '2000' },
      { kind: 'REVERSAL', debit: '2000' },
      { kind: 'ENTRY', debit: '2500' },
    ]);
  });

  it("reads an entry's detail (items, transactions, tags, documents, parties) and its related entries", async () => {
    const { api, token, projectId, partyIds, tags } = w;
    const res = await api.post(
      '/entries',
      {
        projectId,
        entryType: 'EXPENSE',
        baseCurrency: 'USD',
        amountCents: 9_000,
        entryDate: '2026-03-14',
        fromPartyId: partyIds[0],
        toPartyId: partyIds[1],
        description: 'citus detail',
        tagIds: [tags[1]!.id, tags[0]!.id],
        items: [
          { description: 'first', quantity: 2, unitAmountCents: 2_000, amountCents: 4_000 },
          { description: 'second', quantity: 1, unitAmountCents: 5_000, amountCents: 5_000 },
        ],
        transactions: [{ transactionDate: '2026-03-15', amountCents: 9_000, method: 'wire', externalRef: 'citus-tx' }],
      },
      { token },
    );
    created(res);
    const id = res.body.id as number;
    const doc = await api.post(`/entries/${id}/documents/request`, { documentName: 'Invoice', documentType: 'BASIS' }, { token });
    expect(doc.status, doc.text).toBe(200);
    // two details asked for together are read by one statement (a batch of ids, possibly of several workspaces)
    const [detail, other] = await Promise.all([api.get(`/entries/${id}`, { token }), api.get(`/entries/${id - 1}`, { token })]);
    expect(detail.status, `${detail.text}\n${server.output().slice(-3000)}`).toBe(200);
    expect([200, 404]).toContain(other.status);
    expect(detail.body).toMatchObject({
      id,
      workspaceId: w.workspaceId,
      amountCents: 9_000,
      items: [
        { description: 'first', quantity: 2, unitAmountCents: 2_000, amountCents: 4_000, categoryId: null },
        { description: 'second', quantity: 1, unitAmountCents: 5_000, amountCents: 5_000, categoryId: null },
      ],
      transactions: [{ transactionDate: '2026-03-15', amountCents: 9_000, method: 'wire', externalRef: 'citus-tx' }],
      tags: [...tags.slice(0, 2)].sort((a, b) => a.name.localeCompare(b.name)).map((t) => ({ id: t.id, name: t.name, color: null })),
      documents: [{ id: doc.body.id, entryId: id, documentName: 'Invoice', documentType: 'BASIS' }],
      parties: { from: { id: partyIds[0], name: 'Us Ltd' }, to: { id: partyIds[1], name: 'Them Inc' } },
    });
    const refunded = await refund(id, 1_000);
    created(refunded);
    const related = await api.get(`/entries/${id}/related`, { token });
    expect(related.status, related.text).toBe(200);
    expect(related.body).toMatchObject([{ linkType: 'REFUND', role: 'DERIVED', entry: { id: refunded.body.id, amountCents: 1_000 } }]);
    const back = await api.get(`/entries/${refunded.body.id}/related`, { token });
    expect(back.status, back.text).toBe(200);
    expect(back.body).toMatchObject([{ linkType: 'REFUND', role: 'ORIGINAL', entry: { id } }]);
  });

  it('keeps 40 parallel refunds of one entry within its cap, every answer 200 or 409', async () => {
    const original = await newEntry(10_000, 'EXPENSE', true);
    const answers = await Promise.all(Array.from({ length: 40 }, () => refund(original.id, 700)));
    const statuses = answers.map((a) => a.status);
    expect(
      statuses.filter((s) => s !== 200 && s !== 201 && s !== 409),
      JSON.stringify(answers.filter((a) => a.status >= 500).map((a) => a.text)),
    ).toEqual([]);
    const accepted = statuses.filter((s) => s === 200 || s === 201).length;
    step(`40 parallel refunds: ${accepted} accepted`);
    // 700 × 14 = 9,800 ≤ 10,000 < 700 × 15: exactly 14 fit, whatever the order
    expect(accepted).toBe(14);
    expect(await refundedCents(original.id)).toEqual({ cents: 700 * 14, count: 14 });
  });
});

describe('routes that lock one object by its id, on Citus (each answered 500 before: Citus locks rows only in a statement naming the workspace)', () => {
  const ok = (res: { status: number; text: string }, what: string) =>
    expect([200, 201], `${what}: ${res.text}${res.status === 500 ? `\n${server.output().slice(-3000)}` : ''}`).toContain(res.status);
  const made = async (res: Promise<{ status: number; text: string; body: any }>, what: string) => {
    const r = await res;
    ok(r, what);
    return r.body;
  };

  it('changes parties, projects, tags, categories, rules, periods, budgets, recurring entries, API keys, integrations, FX rates, bank accounts, connections and journal transactions', async () => {
    const { api, token } = w;
    const o = { token };
    const ws = (await made(api.post('/workspaces', { name: 'Citus locks' }, o), 'workspace')).id as number;
    const project = await made(api.post('/projects', { workspaceId: ws, name: 'Locks' }, o), 'project');
    ok(await api.patch(`/projects/${project.id}`, { name: 'Locks renamed' }, o), 'PATCH project');
    const party = await made(api.post('/parties', { workspaceId: ws, name: 'Lock Ltd', partyType: 'ORGANIZATION' }, o), 'party');
    ok(await api.patch(`/parties/${party.id}`, { name: 'Lock Ltd renamed' }, o), 'PATCH party');
    const tag = await made(api.post('/tags', { workspaceId: ws, name: 'lock' }, o), 'tag');
    ok(await api.patch(`/tags/${tag.id}`, { name: 'locked' }, o), 'PATCH tag');
    ok(await api.del(`/tags/${tag.id}`, o), 'DELETE tag');

    const category = (body: object) =>
      made(api.post('/accounting/categories', { workspaceId: ws, name: 'Category', accountType: 'EXPENSE', ...body }, o), 'category');
    const office = await category({ code: '6100', name: 'Office' });
    ok(await api.patch(`/accounting/categories/${office.id}`, { name: 'Office supplies' }, o), 'PATCH category');

    const rule = await made(
      api.post(
        '/rules',
        {
          workspaceId: ws,
          name: 'Taxi',
          conditions: [{ field: 'description', operator: 'contains', value: 'taxi' }],
          actions: [{ type: 'SET_EXCLUDE_FROM_SYNC', value: true }],
        },
        o,
      ),
      'rule',
    );
    ok(await api.patch(`/rules/${rule.id}`, { name: 'Taxi rides' }, o), 'PATCH rule');
    ok(await api.del(`/rules/${rule.id}`, o), 'DELETE rule');

    const period = await made(
      api.post('/accounting/periods', { workspaceId: ws, name: 'Jan 2025', startDate: '2025-01-01', endDate: '2025-01-31' }, o),
      'period',
    );
    ok(await api.patch(`/accounting/periods/${period.id}/close`, {}, o), 'close period');
    ok(await api.patch(`/accounting/periods/${period.id}/reopen`, {}, o), 'reopen period');
    ok(await api.del(`/accounting/periods/${period.id}`, o), 'DELETE period');

    const budget = await made(
      api.post(
        '/budgets',
        {
          workspaceId: ws,
          name: 'Plan',
          period: 'MONTH',
          startDate: '2026-01-01',
          periods: 3,
          lines: [{ entryType: 'EXPENSE', amountCents: 100_000 }],
        },
        o,
      ),
      'budget',
    );
    const renamed = await api.patch(`/budgets/${budget.id}`, { name: 'Plan B', periods: 4 }, o);
    ok(renamed, 'PATCH budget');
    expect(renamed.body).toMatchObject({ name: 'Plan B', periods: 4 });
    ok(await api.del(`/budgets/${budget.id}`, o), 'DELETE budget');

    const recurring = await made(
      api.post(
        '/recurring-entries',
        {
          projectId: project.id,
          template: { entryType: 'EXPENSE', amountCents: 150_000, baseCurrency: 'USD', toPartyId: party.id, description: 'Office rent' },
          rrule: 'FREQ=MONTHLY;BYMONTHDAY=1',
          startDate: '2030-01-01',
        },
        o,
      ),
      'recurring entry',
    );
    ok(await api.patch(`/recurring-entries/${recurring.id}`, { isActive: false }, o), 'PATCH recurring entry');
    ok(await api.del(`/recurring-entries/${recurring.id}`, o), 'DELETE recurring entry');

    const key = await made(api.post('/api-keys', { workspaceId: ws, name: 'locks', permissions: ['entry.create'] }, o), 'API key');
    ok(await api.post(`/api-keys/${key.id}/rotate`, {}, o), 'rotate API key');
    ok(await api.del(`/api-keys/${key.id}`, o), 'DELETE API key');

    const integration = await made(api.post('/integrations', { workspaceId: ws, name: 'Locks feed' }, o), 'integration');
    ok(await api.post(`/integrations/${integration.id}/rotate-key`, {}, o), 'rotate integration key');
    ok(await api.del(`/integrations/${integration.id}`, o), 'DELETE integration');

    const rate = await made(
      api.post('/fx-rates', { workspaceId: ws, currency: 'EUR', rateDate: '2026-03-02', rate: '1.08' }, o),
      'FX rate',
    );
    ok(await api.del(`/fx-rates/${rate.id}`, o), 'DELETE FX rate');

    const account = await made(
      api.post(
        '/bank-accounts',
        { workspaceId: ws, name: 'Main', currency: 'EUR', projectId: project.id, partyId: party.id, autoMatch: false },
        o,
      ),
      'bank account',
    );
    ok(await api.patch(`/bank-accounts/${account.id}`, { name: 'Main account' }, o), 'PATCH bank account');
    ok(await api.post(`/bank-accounts/${account.id}/auto-match`, {}, o), 'auto-match');

    const connection = await made(
      api.post(
        '/accounting/connections',
        { workspaceId: ws, providerType: 'MANUAL', name: 'Books', credentials: { apiKey: 'not-a-real-key' } },
        o,
      ),
      'connection',
    );
    ok(await api.patch(`/accounting/connections/${connection.id}`, { name: 'The books' }, o), 'PATCH connection');

    const cash = await category({ code: '1010', name: 'Cash', accountType: 'ASSET' });
    const equity = await category({ code: '3300', name: 'Capital', accountType: 'EQUITY' });
    const journal = await made(
      api.post(
        '/ledger/journal',
        {
          workspaceId: ws,
          date: '2026-04-01',
          description: 'Capital paid in',
          lines: [
            { categoryId: cash.id, debitCents: 50_000 },
            { categoryId: equity.id, creditCents: 50_000 },
          ],
        },
        o,
      ),
      'journal transaction',
    );
    ok(await api.post(`/ledger/journal/${journal.id}/reverse`, {}, o), 'reverse journal transaction');
  });

  it("tests a webhook endpoint and retries its delivery (the delivery's lock names the endpoint's workspace)", async () => {
    const rx = await startReceiver();
    try {
      const o = { token: w.token };
      const ep = await made(w.api.post('/webhook-endpoints', { workspaceId: w.workspaceId, url: rx.url('/locks') }, o), 'endpoint');
      ok(await w.api.patch(`/webhook-endpoints/${ep.id}`, { description: 'locks' }, o), 'PATCH endpoint');
      const test = await made(w.api.post(`/webhook-endpoints/${ep.id}/test`, {}, o), 'test endpoint');
      expect(test.status).toBe('SUCCEEDED');
      const retry = await made(w.api.post(`/webhook-endpoints/${ep.id}/deliveries/${test.id}/retry`, {}, o), 'retry delivery');
      expect(retry).toMatchObject({ id: test.id, status: 'SUCCEEDED' });
      await rx.waitFor('/locks', 2, 15_000);
      ok(await w.api.patch(`/webhook-endpoints/${ep.id}`, { isActive: false }, o), 'disable endpoint');
    } finally {
      await rx.close();
    }
  });
});

describe("the accounting syncs' and mappings' upserts on Citus (their ON CONFLICT names a unique key Citus widened with workspace_id)", () => {
  it('pushes an entry twice (one sync record), creates tax and party mappings (a second is a 409) and upserts a batch', async () => {
    const { api, token, workspaceId, partyIds } = w;
    const o = { token };
    const connection = await api.post(
      '/accounting/connections',
      {
        workspaceId,
        providerType: 'MANUAL',
        name: 'Citus books',
        credentials: { apiKey: 'not-a-real-key' },
        requireCompletenessForSync: false,
        requireReview: false,
      },
      o,
    );
    expect(connection.status, connection.text).toBe(200);
    const connectionId = connection.body.id as string;
    const entry = await api.post(
      '/entries',
      {
        projectId: w.projectId,
        entryType: 'INCOME',
        baseCurrency: 'USD',
        amountCents: 7_700,
        entryDate: '2026-03-16',
        description: 'to push',
      },
      o,
    );
    expect([200, 201], entry.text).toContain(entry.status);
    const push = () => api.post('/accounting/sync/push', { entryId: entry.body.id, connectionId }, o);
    const first = await push();
    expect(first.status, `${first.text}\n${server.output().slice(-3000)}`).toBe(200);
    expect(first.body).toMatchObject({ connectionId, entryId: entry.body.id, status: 'SYNCED', externalId: `manual-${entry.body.id}` });
    const again = await push();
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, status: 'SYNCED' });

    const tax = { connectionId, taxCode: 'VAT19', externalTaxCodeId: 'tax-19' };
    const taxMapping = await api.post('/accounting/mappings/taxes', tax, o);
    expect(taxMapping.status, taxMapping.text).toBe(200);
    const taxAgain = await api.post('/accounting/mappings/taxes', tax, o);
    expect(taxAgain.status, taxAgain.text).toBe(409);
    expect(taxAgain.body).toMatchObject({ code: 'CONFLICT' });

    const party = { connectionId, partyId: partyIds[0], externalId: 'ext-us', externalType: 'VENDOR', externalName: 'Us Ltd' };
    const partyMapping = await api.post('/accounting/mappings/parties', party, o);
    expect(partyMapping.status, partyMapping.text).toBe(200);
    const partyAgain = await api.post('/accounting/mappings/parties', party, o);
    expect(partyAgain.status, partyAgain.text).toBe(409);
    const batch = await api.post(
      '/accounting/mappings/parties/batch',
      {
        connectionId,
        mappings: [
          { partyId: partyIds[0], externalId: 'ext-us-2', externalType: 'VENDOR', externalName: 'Us Ltd' },
          { partyId: partyIds[1], externalId: 'ext-them', externalType: 'CUSTOMER', externalName: 'Them Inc' },
        ],
      },
      o,
    );
    expect(batch.status, batch.text).toBe(200);
    expect(batch.body).toEqual({ created: 1, updated: 1 });
  });
});

describe('bank matches and the books check on Citus', () => {
  const o = () => ({ token: w.token });
  /** A USD bank account of the world's workspace with a statement of two lines (money in 1,234.00, out 56.78). */
  const accountWithLines = async (name: string) => {
    const account = await w.api.post(
      '/bank-accounts',
      { workspaceId: w.workspaceId, name, currency: 'USD', projectId: w.projectId, partyId: w.partyIds[0], autoMatch: false },
      o(),
    );
    expect(account.status, account.text).toBe(200);
    const csv =
      'Date;Amount;Text;Payee;Ref\r\n"05.03.2026";"1234,00";"Invoice";"Acme";"R1"\r\n"06.03.2026";"-56,78";"Fees";"Bank";"R2"\r\n';
    const form = new FormData();
    form.append('file', new Blob([Buffer.from(csv)]), 'statement.csv');
    form.append('csvMapping', JSON.stringify(CSV_MAPPING));
    const imported = await w.api.request('POST', `/bank-accounts/${account.body.id}/statements`, { token: w.token, rawBody: form });
    expect(imported.status, imported.text).toBe(200);
    const lines = await w.api.get(`/bank-accounts/${account.body.id}/lines?limit=10`, o());
    expect(lines.status, lines.text).toBe(200);
    const items = lines.body.items as { id: number; amountCents: number; status: string }[];
    return {
      accountId: account.body.id as string,
      moneyIn: items.find((l) => l.amountCents === 123_400)!,
      moneyOut: items.find((l) => l.amountCents === -5_678)!,
    };
  };
  const entry = async (entryType: 'INCOME' | 'EXPENSE', amountCents: number) => {
    const res = await w.api.post(
      '/entries',
      {
        projectId: w.projectId,
        entryType,
        baseCurrency: 'USD',
        amountCents,
        entryDate: '2026-03-04',
        description: `to match ${amountCents}`,
      },
      o(),
    );
    expect([200, 201], res.text).toContain(res.status);
    return res.body as { id: number };
  };
  const journalKinds = async (entryId: number) =>
    (
      await admin.query<{ kind: string }>(`SELECT kind FROM journal_transactions WHERE workspace_id = $1 AND entry_id = $2 ORDER BY id`, [
        w.workspaceId,
        entryId,
      ])
    ).rows.map((r) => r.kind);
  const verify = async () => {
    const res = await w.api.get(`/ledger/verify?workspaceId=${w.workspaceId}`, o());
    expect(res.status, res.text).toBe(200);
    return res.body as { ok: boolean; entriesChecked: number; mismatches: unknown[] };
  };
  const trialBalanced = async () => {
    const tb = await w.api.get(`/ledger/trial-balance?workspaceId=${w.workspaceId}&asOf=2026-12-31`, o());
    expect(tb.status, tb.text).toBe(200);
    const totals = tb.body.totals as { debitCents: number; creditCents: number };
    expect(totals.creditCents).toBe(totals.debitCents);
  };

  it('creates a manual match (its balance checked: an unequal one is a 409) and deletes it: the settlement is posted, then reversed', async () => {
    const { moneyIn } = await accountWithLines('Citus matches');
    const income = await entry('INCOME', 123_400);
    const short = await entry('INCOME', 123_399);
    const unequal = await w.api.post('/reconciliation/matches', { lineIds: [moneyIn.id], entryIds: [short.id] }, o());
    expect(unequal.status, unequal.text).toBe(409);
    const match = await w.api.post('/reconciliation/matches', { lineIds: [moneyIn.id], entryIds: [income.id] }, o());
    expect(match.status, `${match.text}\n${server.output().slice(-3000)}`).toBe(200);
    expect(match.body).toMatchObject({ workspaceId: w.workspaceId, lineIds: [moneyIn.id], entryIds: [income.id], method: 'MANUAL' });
    const read = await w.api.get(`/reconciliation/matches/${match.body.id}`, o());
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual(match.body);
    expect(await journalKinds(income.id)).toEqual(['ENTRY', 'SETTLEMENT']);
    expect(await verify()).toMatchObject({ ok: true, mismatches: [] });

    const deleted = await w.api.del(`/reconciliation/matches/${match.body.id}`, o());
    expect(deleted.status, `${deleted.text}\n${server.output().slice(-3000)}`).toBe(200);
    expect(deleted.body).toEqual({ success: true });
    expect((await w.api.get(`/reconciliation/matches/${match.body.id}`, o())).status).toBe(404);
    const after = await w.api.get(`/entries/${income.id}`, o());
    expect(after.body).toMatchObject({ isReconciled: false });
    const { rows } = await admin.query<{ status: string; match_id: string | null }>(
      `SELECT status, match_id FROM bank_lines WHERE workspace_id = $1 AND id = $2`,
      [w.workspaceId, moneyIn.id],
    );
    expect(rows).toEqual([{ status: 'UNMATCHED', match_id: null }]);
    expect(await journalKinds(income.id)).toEqual(['ENTRY', 'SETTLEMENT', 'REVERSAL']);
    expect(await verify()).toMatchObject({ ok: true, mismatches: [] });
    await trialBalanced();
  });

  it('holds a match balanced in the database: an unbalanced change of a matched line is refused at commit, on the shard', async () => {
    const { moneyOut } = await accountWithLines('Citus balance');
    const expense = await entry('EXPENSE', 5_678);
    const match = await w.api.post('/reconciliation/matches', { lineIds: [moneyOut.id], entryIds: [expense.id] }, o());
    expect(match.status, match.text).toBe(200);
    const raw = new pg.Client({ connectionString: cluster.databaseUrl });
    await raw.connect();
    try {
      const change = async (sql: string) => {
        await raw.query('BEGIN');
        await raw.query(sql, [w.workspaceId, moneyOut.id]);
        return raw.query('COMMIT').then(
          () => undefined,
          async (e: Error & { code?: string }) => {
            await raw.query('ROLLBACK').catch(() => undefined);
            return e;
          },
        );
      };
      // a statement routed to the workspace's shard group (one-phase commit: the worker's check fails its COMMIT)
      const routed = await change(`UPDATE bank_lines SET amount_cents = -5677 WHERE workspace_id = $1 AND id = $2`);
      expect(routed, 'routed').toBeInstanceOf(Error);
      // a statement on every shard (two-phase commit: the check fails the PREPARE, 23514 as on PostgreSQL)
      const everywhere = await change(`UPDATE bank_lines SET amount_cents = -5677 WHERE id = $2 AND $1::int IS NOT NULL`);
      expect(everywhere, 'on every shard').toMatchObject({ code: '23514', message: expect.stringContaining('bank match') });
      // a balanced change of the match's line commits: the check itself runs on the shard
      expect(await change(`UPDATE bank_lines SET status = 'MATCHED' WHERE workspace_id = $1 AND id = $2`)).toBeUndefined();
    } finally {
      await raw.end();
    }
    const { rows } = await admin.query<{ amount: string; pending: string }>(
      `SELECT (SELECT amount_cents::text FROM bank_lines WHERE workspace_id = $1 AND id = $2) AS amount,
              (SELECT count(*)::text FROM bank_match_checks) AS pending`,
      [w.workspaceId, moneyOut.id],
    );
    expect(rows[0]).toEqual({ amount: '-5678', pending: '0' });
    // the match stays: verify compares its settlement too
    const verified = await verify();
    expect(verified).toMatchObject({ ok: true, mismatches: [] });
    const { rows: count } = await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM entries WHERE workspace_id = $1`, [
      w.workspaceId,
    ]);
    expect(verified.entriesChecked).toBe(count[0]!.n);
    await trialBalanced();
  });
});

describe("the scheduled accounting pulls' claimer on Citus (due connections read workspace by workspace)", () => {
  it('dispatches the due fire time of a BIDIRECTIONAL connection once and runs its pull', async () => {
    const pulls = () => provider.requests.filter((r) => r.method === 'GET' && r.path === '/entries').length;
    await expect
      .poll(
        async () =>
          (
            await admin.query<{ last_fire_at: Date; last_finished_at: Date | null; last_error: string | null }>(
              `SELECT last_fire_at, last_finished_at, last_error FROM accounting_pull_schedule WHERE workspace_id = $1 AND connection_id = $2`,
              [w.workspaceId, scheduled.connectionId],
            )
          ).rows[0] ?? null,
        { timeout: Math.max(0, scheduled.fireAt.getTime() - Date.now()) + 150_000, interval: 500 },
      )
      .toMatchObject({ last_finished_at: expect.any(Date) });
    const { rows } = await admin.query<{ last_fire_at: Date; last_error: string | null }>(
      `SELECT last_fire_at, last_error FROM accounting_pull_schedule WHERE workspace_id = $1 AND connection_id = $2`,
      [w.workspaceId, scheduled.connectionId],
    );
    expect(rows[0]!.last_fire_at.getTime()).toBe(scheduled.fireAt.getTime());
    expect(rows[0]!.last_error).toBeNull();
    expect(pulls()).toBe(1);
  });
});

describe('review approval, document review and inbox attach over HTTP on Citus', () => {
  const pdf = (text: string) =>
    Buffer.from(`%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n% ${text}\ntrailer << /Root 1 0 R >>\n%%EOF\n`, 'latin1');
  const pdfPart = (form: FormData, text: string, name: string) =>
    form.append('file', new Blob([new Uint8Array(pdf(text))], { type: 'application/pdf' }), name);

  it("approves an entry's review, uploads and approves its document, and attaches an inbox document to another entry", async () => {
    const { api, token, workspaceId, projectId } = w;
    const o = { token };
    const connection = await api.post(
      '/accounting/connections',
      { workspaceId, providerType: 'MANUAL', name: 'Reviewed books', credentials: { apiKey: 'not-a-real-key' }, requireReview: true },
      o,
    );
    expect(connection.status, connection.text).toBe(200);
    const newEntry = async (amountCents: number) => {
      const res = await api.post(
        '/entries',
        { projectId, entryType: 'EXPENSE', baseCurrency: 'USD', amountCents, entryDate: '2026-03-18', description: 'reviewed on Citus' },
        o,
      );
      expect([200, 201], res.text).toContain(res.status);
      return res.body as { id: number };
    };
    try {
      // a connection that requires review queues one for a new entry of its workspace (CONTRACT §8)
      const entry = await newEntry(700);
      const reviews = await api.get(`/accounting/reviews?workspaceId=${workspaceId}&entryId=${entry.id}`, o);
      expect(reviews.status, reviews.text).toBe(200);
      const review = (reviews.body.items as { id: string; connectionId: string; status: string }[]).find(
        (r) => r.connectionId === connection.body.id,
      );
      expect(review, reviews.text).toMatchObject({ status: 'QUEUED' });
      const approved = await api.patch(`/accounting/reviews/${review!.id}/approve`, { notes: 'approved on Citus' }, o);
      expect(approved.status, `${approved.text}\n${server.output().slice(-3000)}`).toBe(200);
      expect(approved.body).toMatchObject({ id: review!.id, status: 'APPROVED', notes: 'approved on Citus' });

      // a document uploaded to the entry, then approved (its review)
      const form = new FormData();
      form.append('documentType', 'BASIS');
      pdfPart(form, 'citus receipt', 'receipt.pdf');
      const uploaded = await api.request('POST', `/entries/${entry.id}/documents/upload?workspaceId=${workspaceId}`, {
        token,
        rawBody: form,
      });
      expect(uploaded.status, uploaded.text).toBe(200);
      expect(uploaded.body).toMatchObject({ entryId: entry.id, status: 'UPLOADED' });
      const docApproved = await api.patch(`/entries/${entry.id}/documents/${uploaded.body.id}/approve`, undefined, o);
      expect(docApproved.status, `${docApproved.text}\n${server.output().slice(-3000)}`).toBe(200);
      expect(docApproved.body).toMatchObject({ id: uploaded.body.id, status: 'APPROVED' });

      // an inbox document of the workspace, attached to another entry
      const inboxForm = new FormData();
      inboxForm.append('workspaceId', String(workspaceId));
      pdfPart(inboxForm, 'citus inbox', 'invoice.pdf');
      const inboxed = await api.request('POST', '/inbox/documents', { token, rawBody: inboxForm });
      expect(inboxed.status, inboxed.text).toBe(200);
      const other = await newEntry(900);
      const attached = await api.post(`/inbox/documents/${inboxed.body.id}/attach`, { entryId: other.id }, o);
      expect(attached.status, `${attached.text}\n${server.output().slice(-3000)}`).toBe(200);
      expect(attached.body).toMatchObject({ id: inboxed.body.id, status: 'ATTACHED', entryId: other.id });
      const documents = await api.get(`/entries/${other.id}/documents`, o);
      expect(documents.status, documents.text).toBe(200);
      expect(JSON.stringify(documents.body)).toContain('invoice.pdf');
    } finally {
      // later entries of the workspace queue no more reviews
      expect((await api.del(`/accounting/connections/${connection.body.id}`, o)).status).toBe(200);
    }
  });
});

describe('the demo seed on Citus (npm start seeds an empty database)', () => {
  it('seeds a fresh distributed database at start; its entries, details, bank matches and syncs read back', async () => {
    const url = await cluster.addDatabase('demo');
    // the server exits ("Failed to start") when the seed fails
    const demo = await startServerProcess(url, { SEED_DEMO: 'true' }, 300_000);
    try {
      const api = plainClient(demo.baseUrl);
      const login = await api.post('/auth/login', ADMIN);
      expect(login.status, login.text).toBe(200);
      const o = { token: login.body.access_token as string };
      const workspaces = await api.get('/workspaces', o);
      expect(workspaces.status, workspaces.text).toBe(200);
      expect(workspaces.body).toMatchObject([{ name: 'Demo Company' }]);
      const ws = workspaces.body[0].id as number;
      const list = await api.get(`/entries?workspaceId=${ws}&limit=100`, o);
      expect(list.status, list.text).toBe(200);
      const ids = (list.body.items as { id: number }[]).map((e) => e.id);
      expect(ids.length).toBeGreaterThan(50);
      const details = await Promise.all(ids.slice(0, 20).map((id) => api.get(`/entries/${id}`, o)));
      for (const d of details) expect(d.status, d.text).toBe(200);
      // the seed matched bank lines (settlements posted), attached documents and pushed to the books
      const { rows } = await demoCounts(url);
      expect(rows[0]).toMatchObject({ settlements: expect.any(Number), documents: expect.any(Number), synced: expect.any(Number) });
      expect(rows[0]!.settlements).toBeGreaterThan(0);
      expect(rows[0]!.documents).toBeGreaterThan(0);
      expect(rows[0]!.synced).toBeGreaterThan(0);
    } finally {
      await demo.kill();
    }
  });
});

async function demoCounts(url: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await c.query<{ settlements: number; documents: number; synced: number }>(
      `SELECT (SELECT count(*)::int FROM journal_transactions WHERE kind = 'SETTLEMENT') AS settlements,
              (SELECT count(*)::int FROM entry_documents WHERE status <> 'REQUESTED') AS documents,
              (SELECT count(*)::int FROM accounting_syncs WHERE status = 'SYNCED') AS synced`,
    );
  } finally {
    await c.end();
  }
}

describe('workspaces moved between workers while the service serves writes', () => {
  it('adds a third worker and rebalances under a write load: every acknowledged write there once, no 500, none slower than 10 s', async () => {
    const { api, token, workspaceId } = w;
    const worker3 = await cluster.addWorker();
    step(`worker3 on ${worker3.port}; starting the load`);
    type Op = { key: string; reference: string; statuses: number[]; final?: number };
    const ops: Op[] = [];
    let slowest = 0;
    let stopped = false;
    const loop = async () => {
      while (!stopped) {
        const key = randomUUID();
        const op: Op = { key, reference: `rb-${key}`, statuses: [] };
        ops.push(op);
        const body = { workspaceId, name: op.reference, partyType: 'ORGANIZATION' };
        for (let attempt = 0; attempt < 60; attempt++) {
          const started = Date.now();
          const res = await api
            .post('/parties', body, { token, headers: { 'Idempotency-Key': key } })
            .catch(() => ({ status: 0 }) as { status: number });
          slowest = Math.max(slowest, Date.now() - started);
          op.statuses.push(res.status);
          // a retry of the same key: network errors, 503 (database unavailable) and 409 (the first attempt still running)
          if (![0, 409, 502, 503, 504].includes(res.status)) {
            op.final = res.status;
            break;
          }
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    };
    const load = Promise.all(Array.from({ length: 4 }, loop));
    await new Promise((r) => setTimeout(r, 2_000));
    // the rebalancer moves shard groups to the new worker; the load's own workspace is moved there too
    await admin.query(`SELECT citus_rebalance_start()`);
    await waitRebalanced();
    const placement = async () =>
      (
        await admin.query<{ shardid: string; port: number }>(
          `SELECT s.shardid::text, p.nodeport AS port FROM pg_dist_shard s JOIN pg_dist_placement pl ON pl.shardid = s.shardid
             JOIN pg_dist_node p ON p.groupid = pl.groupid
            WHERE s.logicalrelid = 'workspaces'::regclass AND s.shardid = get_shard_id_for_distribution_column('workspaces', $1::int)`,
          [workspaceId],
        )
      ).rows[0]!;
    const before = await placement();
    if (before.port !== worker3.port) {
      step(`moving workspace ${workspaceId}'s shard group from ${before.port} to ${worker3.port}`);
      await admin.query(`SELECT citus_move_shard_placement($1::bigint, '127.0.0.1', $2, '127.0.0.1', $3)`, [
        before.shardid,
        before.port,
        worker3.port,
      ]);
    }
    await new Promise((r) => setTimeout(r, 2_000));
    stopped = true;
    await load;
    expect((await placement()).port).toBe(worker3.port);
    const { rows: moved } = await admin.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_dist_placement pl JOIN pg_dist_node p ON p.groupid = pl.groupid WHERE p.nodeport = $1`,
      [worker3.port],
    );
    step(`${ops.length} writes, ${moved[0]!.n} shards on worker3, slowest answer ${slowest} ms`);
    expect(Number(moved[0]!.n)).toBeGreaterThan(0);
    const all = ops.flatMap((o) => o.statuses);
    const tally: Record<number, number> = {};
    for (const status of all) tally[status] = (tally[status] ?? 0) + 1;
    step(`answers: ${JSON.stringify(tally)}`);
    expect(all.filter((s) => s >= 500 && s !== 503)).toEqual([]);
    expect(slowest).toBeLessThan(10_000);
    const acked = ops.filter((o) => o.final === 200 || o.final === 201);
    expect(acked.length).toBeGreaterThan(10);
    expect(ops.filter((o) => o.final !== 200 && o.final !== 201).map((o) => o.statuses)).toEqual([]);
    const { rows } = await admin.query<{ reference: string; n: string }>(
      `SELECT name AS reference, count(*) AS n FROM parties WHERE workspace_id = $1 AND name LIKE 'rb-%' GROUP BY name`,
      [workspaceId],
    );
    const count = new Map(rows.map((r) => [r.reference, Number(r.n)]));
    for (const op of acked) expect(count.get(op.reference), op.reference).toBe(1);
    expect([...count.values()].every((n) => n === 1)).toBe(true);
  });
});

async function waitRebalanced(): Promise<void> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const { rows } = await admin.query<{ state: string }>(`SELECT state::text FROM citus_rebalance_status()`);
    const state = rows[0]?.state;
    if (!state || state === 'finished') return;
    if (state === 'failed' || state === 'cancelled') throw new Error(`rebalance ${state}`);
    if (Date.now() > deadline) throw new Error(`rebalance still ${state} after 180 s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
