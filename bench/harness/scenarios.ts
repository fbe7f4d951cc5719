/** Every scenario next to its baseline, measured in the same run (see bench/run.ts). */
import os from 'node:os';
import pg from 'pg';
import { entryFilterSql } from '../../server/domains/entries/entry-filters.js';
import { entryPageSql } from '../../server/domains/entries/list.service.js';
import { ListEntriesQuery } from '../../shared/contracts/entries.js';
import type { ReadDataset, WriteWorkspace } from './fixtures.js';
import { cannon, loop, repeat } from './load.js';
import { recordReportSql, replay, type ReportCase } from './report-sql.js';
import type { ServerProcess } from './server-process.js';
import { combineRuns, metered, type Metered } from './cpu.js';
import { databaseCeiling, listLatencyRow, medianRow, throughputRow, withSameSql, type ResultRow } from './table.js';
import { captureEntryCreate, captureEntryDetail, startSameSqlServer } from './same-sql-process.js';
import { exportScenario } from './export-scenario.js';
import { ingestScenario } from './ingest-scenario.js';
import { coalescingScenario } from './coalescing-scenario.js';
import { api, deliveryRateScenario, drained, outboxOverheadScenario, startReceiver } from './webhooks-scenario.js';
import { rulesScenarios, side } from './rules-scenario.js';
import { ensureValuations, fxReportScenario } from './fx-report-scenario.js';
import { listPagesScenarios } from './list-pages-scenario.js';
import { mcpScenarios } from './mcp-scenario.js';
import { booksScenarios } from './books-scenario.js';
import { budgetScenario } from './budget-scenario.js';

export type BenchSettings = {
  entries: number;
  /** autocannon run per side for GET/POST */
  seconds: number;
  /** run per side for every list filter mix */
  listSeconds: number;
  reportRuns: number;
  ingestBatches: number;
  warmupSeconds: number;
  /** run only the scenarios whose step name contains this text (`--only`) */
  only?: string;
};

export type BenchContext = {
  server: ServerProcess;
  token: string;
  dataset: ReadDataset;
  writes: WriteWorkspace;
  settings: BenchSettings;
  url: string;
  /** the bench PostgreSQL's postmaster (embedded), for CPU accounting; undefined with BENCH_DATABASE_URL */
  postgresPid?: number;
  log: (m: string) => void;
};

const CONNECTIONS = 10;

/** Ours ≥ this share of the same SQL replayed bare (issue 53, deliverables 2 and 6). */
const SAME_SQL_MIN = { detail: 0.6, create: 0.75 };

async function getById(c: BenchContext): Promise<ResultRow> {
  const [lo, hi] = c.dataset.entryIds;
  const auth = { authorization: `Bearer ${c.token}` };
  const randomId = () => lo + Math.floor(Math.random() * (hi - lo + 1));
  const pathFor = () => `/entries/${randomId()}`;
  const plan = await captureEntryDetail(c.token, [randomId(), lo, hi]);
  const same = await startSameSqlServer(plan, c.url, CONNECTIONS);
  try {
    await cannon({ url: c.server.base, headers: auth, pathFor, seconds: c.settings.warmupSeconds, connections: CONNECTIONS });
    await cannon({ url: `${c.server.base}/bench/ping`, headers: auth, seconds: c.settings.warmupSeconds, connections: CONNECTIONS });
    await cannon({ url: same.base, pathFor, seconds: c.settings.warmupSeconds, connections: CONNECTIONS });
    const peak = c.server.watchRss();
    const ours = await metered(c, () =>
      cannon({ url: c.server.base, headers: auth, pathFor, seconds: c.settings.seconds, connections: CONNECTIONS }),
    );
    const peakRss = peak();
    const base = await metered(c, () =>
      cannon({ url: `${c.server.base}/bench/ping`, headers: auth, seconds: c.settings.seconds, connections: CONNECTIONS }),
    );
    const bare = await metered(c, () => cannon({ url: same.base, pathFor, seconds: c.settings.seconds, connections: CONNECTIONS }), same);
    const row = throughputRow('GET /entries/{id} vs constant query and same SQL', ours, base, peakRss, 0.45);
    return withSameSql(row, ours, bare, SAME_SQL_MIN.detail, same.summary);
  } finally {
    await same.stop();
  }
}

/** The server's counters of grouped creates (server/db/commit-group.ts, GET /metrics). */
async function createGroups(c: BenchContext): Promise<{ shared: number; grouped: number; fallbacks: number }> {
  const text = await (await fetch(`${c.server.base}/metrics`)).text();
  const value = (series: string) => Number(new RegExp(`^${series} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return {
    shared: value('commit_group_transactions_total\\{group="entry_create",outcome="committed"\\}'),
    grouped: value('commit_group_items_total\\{group="entry_create"\\}'),
    fallbacks: value('commit_group_transactions_total\\{group="entry_create",outcome="fallback"\\}'),
  };
}

/**
 * POST /entries with what a create carries since issues 15–17 (the figure of issue 23): a workspace of its own
 * with the rules scenario's 100 rules (the body matches several: category, tags, RULE_APPLIED events), one
 * webhook endpoint subscribed to entry.created (deliveries go out to a loopback receiver meanwhile) and an
 * EUR rate, the body in EUR (valued in the USD base).
 */
async function postEntry(c: BenchContext): Promise<ResultRow> {
  const auth = { authorization: `Bearer ${c.token}` };
  const ws = await side(c, true);
  const client = new pg.Client({ connectionString: c.url });
  await client.connect();
  const rx = await startReceiver();
  try {
    await client.query(
      `INSERT INTO fx_rates (workspace_id, currency, rate_date, rate, source) VALUES ($1, 'EUR', '2026-01-14', 1.0842, 'MANUAL')`,
      [ws.workspaceId],
    );
    const endpoint = await api(c, 'POST', '/webhook-endpoints', {
      workspaceId: ws.workspaceId,
      url: rx.url,
      eventTypes: ['entry.created'],
    });
    const body = JSON.stringify({
      projectId: ws.projectId,
      entryType: 'EXPENSE',
      baseCurrency: 'EUR',
      amountCents: 1_044, // rule 44 (amount eq)
      entryDate: '2026-01-15',
      description: 'order 7 from the shop feed 11', // rule 11 (matches)
      reference: 'INV-700', // rule 7 (startsWith)
    });
    const postTo = (path: string) => (seconds: number) =>
      cannon({ url: `${c.server.base}${path}`, method: 'POST', headers: auth, body, seconds, connections: CONNECTIONS });
    const post = postTo('/entries');
    const constant = postTo('/bench/ping');
    // the same SQL: the statements of this create (same workspace, rules, endpoint and rate) replayed bare
    const same = await startSameSqlServer(await captureEntryCreate(c.token, body), c.url, CONNECTIONS);
    await drained(client, ws.workspaceId); // the captured creates' deliveries
    const bare = (seconds: number) => cannon({ url: `${same.base}/entries`, method: 'POST', body, seconds, connections: CONNECTIONS });
    await post(Math.max(2, c.settings.warmupSeconds)); // the first scenario of a --only run meets a cold server
    await bare(c.settings.warmupSeconds);
    const peak = c.server.watchRss();
    const groupsBefore = await createGroups(c);
    // halves in the order ours, constant, same SQL, same SQL, constant, ours, so that drift of the shared machine
    // hits every side alike; the deliveries of a POST or same-SQL half are drained before the next half starts
    const runs = { ours: [] as Metered[], base: [] as Metered[], same: [] as Metered[] };
    try {
      for (const key of ['ours', 'base', 'same', 'same', 'base', 'ours'] as const) {
        if (key === 'same') runs.same.push(await metered(c, () => bare(c.settings.seconds / 2), same));
        else runs[key].push(await metered(c, () => (key === 'ours' ? post : constant)(c.settings.seconds / 2)));
        if (key !== 'base') await drained(client, ws.workspaceId); // the same SQL writes the outbox rows too; the server delivers them
      }
    } finally {
      await same.stop();
    }
    const groupsAfter = await createGroups(c);
    const peakRss = peak();
    await api(c, 'DELETE', `/webhook-endpoints/${endpoint.id}`);
    const ours = combineRuns(runs.ours);
    const base = combineRuns(runs.base);
    const row = throughputRow('POST /entries vs constant mutation and same SQL', ours, base, peakRss, 0.25);
    withSameSql(row, ours, combineRuns(runs.same), SAME_SQL_MIN.create, same.summary);
    const cores = os.cpus().length;
    const ceiling = (row.databaseCeiling = databaseCeiling(ours, base, cores));
    const bound = ceiling
      ? `; PostgreSQL alone caps creates at ${ceiling.perSecond.toFixed(0)} req/s on ${cores} cores (ratio ${ceiling.ratio.toFixed(2)}), with a server that would cost nothing`
      : '';
    const grouped = groupsAfter.grouped - groupsBefore.grouped;
    const shared = groupsAfter.shared - groupsBefore.shared;
    const groups = `group commit: ${grouped} of ${ours.requests} creates in ${shared} shared transactions (${shared ? (grouped / shared).toFixed(1) : '0'} each), ${groupsAfter.fallbacks - groupsBefore.fallbacks} written again alone`;
    row.note = `alternating halves (ours, constant, same SQL, same SQL, constant, ours); 100 rules (several apply), 1 webhook endpoint (${rx.count()} deliveries), EUR valued in USD; ${row.note}${bound}; ${groups}`;
    return row;
  } finally {
    await rx.close();
    await client.end();
  }
}

function listMixes(d: ReadDataset): { name: string; query: Record<string, string | number> }[] {
  return [
    { name: 'no filters', query: {} },
    { name: 'project + INCOME', query: { projectId: d.projectIds[0], entryType: 'INCOME' } },
    { name: '2025 + COMPLETED', query: { fromDate: '2025-01-01', toDate: '2025-12-31', entryStatus: 'COMPLETED' } },
    { name: 'party (either side)', query: { partyId: d.partyIds[10] } },
    { name: '2 tags', query: { tagIds: `${d.tagIds[0]},${d.tagIds[1]}` } },
    { name: 'amount range by amount', query: { amountMin: 100_000, amountMax: 200_000, sortBy: 'amountCents' } },
    { name: 'search text', query: { search: 'entry 4242' } },
    { name: `deep offset ${Math.floor(d.entries / 2).toLocaleString('en-US')}`, query: { offset: Math.floor(d.entries / 2) } },
  ];
}

async function listScenario(
  c: BenchContext,
  pool: pg.Pool,
  mix: { name: string; query: Record<string, string | number> },
): Promise<ResultRow> {
  const raw = { workspaceId: c.dataset.workspaceId, limit: 20, ...mix.query };
  const qs = new URLSearchParams(Object.entries(raw).map(([k, v]): [string, string] => [k, String(v)])).toString();
  const q = ListEntriesQuery.parse(raw);
  // the same statements as server/domains/entries/list.service.ts, for a member of the whole workspace
  const { where, orderBy, params } = entryFilterSql(q, { workspaceId: q.workspaceId, all: true });
  const n = params.length;
  const rowsSql = entryPageSql(where, orderBy, `$${n + 1}`, `$${n + 2}`);
  const countSql = `SELECT count(*)::bigint AS total FROM entries e WHERE ${where}`;
  const peak = c.server.watchRss();
  const ours = await metered(c, () =>
    cannon({
      url: `${c.server.base}/entries?${qs}`,
      headers: { authorization: `Bearer ${c.token}` },
      seconds: c.settings.listSeconds,
      connections: CONNECTIONS,
    }),
  );
  const peakRss = peak();
  const base = await loop(c.settings.listSeconds, CONNECTIONS, () =>
    Promise.all([pool.query(rowsSql, [...params, q.limit, q.offset]), pool.query(countSql, params)]),
  );
  return listLatencyRow(`GET /entries: ${mix.name}`, ours, base, peakRss);
}

const REPORTS: ReportCase[] = [
  { name: 'summary', path: '/reports/summary', query: {}, call: 'summary' },
  { name: 'timeline (month)', path: '/reports/timeline', query: { groupBy: 'month' }, call: 'timeline' },
  { name: 'by-party', path: '/reports/by-party', query: {}, call: 'byParty' },
  { name: 'by-tag', path: '/reports/by-tag', query: {}, call: 'byTag' },
  { name: 'by-project', path: '/reports/by-project', query: {}, call: 'byProject' },
  { name: 'flows', path: '/reports/flows', query: {}, call: 'flows' },
  { name: 'distribution', path: '/reports/distribution', query: {}, call: 'distribution' },
  { name: 'calendar (2025)', path: '/reports/calendar', query: { year: 2025 }, call: 'calendar' },
];

async function reportScenario(c: BenchContext, client: pg.Client, r: ReportCase): Promise<ResultRow> {
  const input = { workspaceId: c.dataset.workspaceId, ...r.query };
  const url = new URL(r.path, c.server.base);
  for (const [k, v] of Object.entries(input)) url.searchParams.set(k, String(v));
  const fetchReport = async () => {
    const res = await fetch(url, { headers: { authorization: `Bearer ${c.token}` } });
    const body = await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${r.path}: ${res.status} ${Buffer.from(body).toString('utf8').slice(0, 300)}`);
  };
  await fetchReport(); // warm-up, not counted
  const statements = await recordReportSql(c.token, r, input);
  await replay(client, statements);
  // interleaved (ours, raw, ours, raw …) so that load from other processes hits both sides alike
  const oursMs: number[] = [];
  const baseMs: number[] = [];
  const oursRuns: Metered[] = [];
  const peak = c.server.watchRss();
  for (let i = 0; i < c.settings.reportRuns; i++) {
    oursRuns.push(await metered(c, () => repeat(1, fetchReport)));
    oursMs.push(oursRuns[i].p50);
    baseMs.push((await repeat(1, () => replay(client, statements))).p50);
  }
  return medianRow(
    `report ${r.name} (whole workspace)`,
    oursMs,
    baseMs,
    peak(),
    2,
    `baseline: ${statements.length} statement(s) replayed (incl. SET LOCAL)`,
    oursRuns,
  );
}

export async function runScenarios(c: BenchContext): Promise<ResultRow[]> {
  const rows: ResultRow[] = [];
  const step = async (name: string, fn: () => Promise<ResultRow>) => {
    if (c.settings.only && !name.includes(c.settings.only)) return;
    const t0 = performance.now();
    const row = await fn();
    rows.push(row);
    c.log(
      `  ${name}: ours ${row.ours.toFixed(1)} ${row.unit}, baseline ${row.baseline.toFixed(1)}, ratio ${row.ratio.toFixed(2)} (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
    );
  };
  const pool = new pg.Pool({ connectionString: c.url, max: CONNECTIONS });
  const client = new pg.Client({ connectionString: c.url });
  await client.connect();
  try {
    await step('GET /entries/{id} vs same SQL', () => getById(c)); // `--only 'same SQL'` runs this and the POST row
    for (const mix of listMixes(c.dataset)) await step(`list ${mix.name}`, () => listScenario(c, pool, mix));
    for (const s of listPagesScenarios(c, pool)) await step(s.name, s.run);
    for (const r of REPORTS) await step(`report ${r.name}`, () => reportScenario(c, client, r));
    let valued: Promise<void> | undefined; // once, before the first normalised report
    for (const r of REPORTS) {
      await step(`fx normalised report ${r.name}`, async () => {
        await (valued ??= ensureValuations(c.url, c.dataset.workspaceId, c.log));
        return fxReportScenario(c, r);
      });
    }
    await step('report budget-vs-actual', async () => {
      await (valued ??= ensureValuations(c.url, c.dataset.workspaceId, c.log)); // amountBaseCents, as the report reads
      return budgetScenario(c, client);
    });
    await step('CSV export', () => exportScenario(c));
    await step('POST /entries vs same SQL', () => postEntry(c));
    await step('ingest', () => ingestScenario(c));
    await step('coalescing: ingest in small batches vs POST /entries one by one', () => coalescingScenario(c));
    await step('webhooks: POST /entries with an endpoint', () => outboxOverheadScenario(c));
    await step('webhooks: deliveries/s', () => deliveryRateScenario(c));
    const rules = rulesScenarios(c);
    await step('rules: ingest', rules.ingest);
    await step('rules: POST /entries', rules.post);
    for (const [name, run] of (await import('./bank-scenario.js')).bankScenarios(c)) await step(name, run);
    for (const [name, run] of mcpScenarios(c)) await step(name, run);
    for (const [name, run] of booksScenarios(c, pool)) await step(name, run);
    for (const [name, run] of (await import('./documents-scenario.js')).documentScenarios(c)) await step(name, run);
  } finally {
    await client.end();
    await pool.end();
  }
  return rows;
}
