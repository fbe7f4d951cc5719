/**
 * CONTRACT §16 "Speed": rules run in memory, loaded once per request per workspace. The same work
 * twice in one run — a workspace with 100 active rules and one without — for ingest (1,000-entry
 * batches, alternating between the two so that drift hits both alike) and for POST /entries.
 * Target: with rules at most 20 % slower (rate ratio >= 1 / 1.2).
 */
import pg from 'pg';
import { cannon, summarize, type LoadResult } from './load.js';
import { combineRuns, metered, type Metered } from './cpu.js';
import { ingestBatch } from './ingest-scenario.js';
import type { BenchContext } from './scenarios.js';
import { throughputRow, type ResultRow } from './table.js';

const RULES = 100;
const BATCH = 1000;
const MIN_RATIO = 1 / 1.2;

export type Side = { workspaceId: number; projectId: number; apiKey: string };

async function call(c: BenchContext, method: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${c.server.base}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', authorization: `Bearer ${c.token}` },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}

/** 100 rules of every condition kind (a fifth of them RE2 patterns); over a tenth of the ingested entries match one. */
async function createRules(c: BenchContext, ws: { workspaceId: number; projectId: number }): Promise<void> {
  const categories: string[] = [];
  for (let i = 0; i < 5; i++) {
    categories.push(
      (
        await call(c, 'POST', '/accounting/categories', {
          workspaceId: ws.workspaceId,
          code: `B${i}`,
          name: `Bench ${i}`,
          accountType: 'EXPENSE',
        })
      ).id,
    );
  }
  const tag = (await call(c, 'POST', '/tags', { workspaceId: ws.workspaceId, name: 'bench-rule' })).id;
  for (let i = 0; i < RULES; i++) {
    const kind = i % 5;
    const conditions =
      kind === 0
        ? [{ field: 'description', operator: 'contains', value: `sku-${i}x` }]
        : kind === 1
          ? [{ field: 'description', operator: 'matches', value: `^order \\d+ from the (shop|store) feed ${i}$` }]
          : kind === 2
            ? [{ field: 'reference', operator: 'startsWith', value: `INV-${i}0` }]
            : kind === 3
              ? [
                  { field: 'counterparty', operator: 'equals', value: `Vendor ${i}` },
                  { field: 'amountCents', operator: 'between', value: [100, 50_000] },
                ]
              : [{ field: 'amountCents', operator: 'eq', value: 1_000 + i }];
    await call(c, 'POST', '/rules', {
      workspaceId: ws.workspaceId,
      name: `bench rule ${i}`,
      priority: i,
      match: 'ALL',
      conditions,
      actions: [{ type: 'SET_CATEGORY', categoryId: categories[i % 5] }, ...(i % 2 ? [{ type: 'ADD_TAGS', tagIds: [tag] }] : [])],
    });
  }
}

/** A fresh workspace (with the bench user as a member), its rules when asked, and an integration for ingest. */
export async function side(c: BenchContext, withRules: boolean): Promise<Side> {
  const me = (await (await fetch(`${c.server.base}/auth/me`, { headers: { authorization: `Bearer ${c.token}` } })).json()) as {
    id: string;
  };
  const client = new pg.Client({ connectionString: c.url });
  await client.connect();
  let ws: { workspaceId: number; projectId: number };
  try {
    const { rows } = await client.query<{ ws: number; project: number }>(
      `WITH w AS (INSERT INTO workspaces (name, base_currency) VALUES ($1, 'USD') RETURNING id),
            p AS (INSERT INTO projects (workspace_id, name, code) SELECT id, 'Writes', 'W' FROM w RETURNING id, workspace_id),
            s AS (INSERT INTO entry_sources (workspace_id, kind, name) SELECT id, 'MANUAL', 'Manual' FROM w),
            m AS (INSERT INTO workspace_members (workspace_id, user_id) SELECT id, $2 FROM w)
       SELECT p.workspace_id AS ws, p.id AS project FROM p`,
      [`Bench rules ${withRules ? 'with' : 'without'} ${new Date().toISOString()}`, me.id],
    );
    ws = { workspaceId: rows[0].ws, projectId: rows[0].project };
  } finally {
    await client.end();
  }
  // the membership reaches the server's session cache through its NOTIFY: wait until it answers
  for (let i = 0; i < 50; i++) {
    const res = await fetch(`${c.server.base}/rules?workspaceId=${ws.workspaceId}`, { headers: { authorization: `Bearer ${c.token}` } });
    if (res.status === 200) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (withRules) await createRules(c, ws);
  const integration = await call(c, 'POST', '/integrations', { workspaceId: ws.workspaceId, name: 'Bench rules feed' });
  return { ...ws, apiKey: integration.apiKey };
}

const item = (run: string, n: number, projectId: number) => ({
  externalId: `${run}-${n}`,
  projectId,
  entryType: n % 3 === 0 ? 'INCOME' : 'EXPENSE',
  amountCents: 100 + ((n * 7919) % 500_000),
  baseCurrency: 'EUR',
  entryDate: `2026-0${1 + (n % 9)}-${String(1 + (n % 28)).padStart(2, '0')}`,
  // n % 10 === 1: rule n % 100 (a `matches` rule) applies; some references and vendors match other rules
  description: n % 10 === 1 ? `order ${n} from the shop feed ${n % RULES}` : `Order ${n} sku-${n % 7}`,
  reference: `INV-${n}`,
  toParty: { name: `Vendor ${n % 200}` },
});

/** A rules-vs-none row: at most 20 % slower with the rules. */
const row = (scenario: string, unit: string, ours: Metered, base: Metered, note: string): ResultRow =>
  throughputRow(scenario, ours, base, NaN, MIN_RATIO, [note], {
    unit,
    target: `ratio >= ${MIN_RATIO.toFixed(2)} (at most 20 % slower)`,
    sides: ['with rules', 'without'],
  });

/** Ingest: batches alternate between the two workspaces; each side's rate is its rows over its own summed batch time. */
async function ingestWithRules(c: BenchContext, ruled: Side, plain: Side): Promise<ResultRow> {
  const run = `rules-${Date.now()}`;
  await ingestBatch(c, ruled.apiKey, [item(`${run}-warm-r`, 0, ruled.projectId)]);
  await ingestBatch(c, plain.apiKey, [item(`${run}-warm-p`, 0, plain.projectId)]);
  const times: Record<'ruled' | 'plain', number[]> = { ruled: [], plain: [] };
  const batches = Math.max(2, c.settings.ingestBatches);
  const timed = async (key: 'ruled' | 'plain', s: Side, b: number) => {
    const items = Array.from({ length: BATCH }, (_, i) => item(`${run}-${key}`, b * BATCH + i, s.projectId));
    const t0 = performance.now();
    await ingestBatch(c, s.apiKey, items);
    times[key].push(performance.now() - t0);
  };
  const per = (key: 'ruled' | 'plain'): LoadResult => {
    const r = summarize(times[key], times[key].reduce((a, b) => a + b, 0) / 1000);
    return { ...r, perSecond: (r.requests * BATCH) / r.seconds };
  };
  const both = await metered(c, async () => {
    for (let b = 0; b < batches; b++) {
      if (b % 2 === 0) {
        await timed('ruled', ruled, b);
        await timed('plain', plain, b);
      } else {
        await timed('plain', plain, b);
        await timed('ruled', ruled, b);
      }
    }
    return summarize([...times.ruled, ...times.plain], 1);
  });
  const cpu = { serverCpuMs: both.serverCpuMs, dbCpuMs: both.dbCpuMs };
  return row(
    `ingest ${batches} x ${BATCH} entries: ${RULES} rules vs none`,
    'rows/s',
    { ...per('ruled'), ...cpu },
    { ...per('plain'), ...cpu },
    `alternating batches, one client; p50/p95/p99 per batch; CPU is per batch over both sides`,
  );
}

async function postWithRules(c: BenchContext, ruled: Side, plain: Side): Promise<ResultRow> {
  const auth = { authorization: `Bearer ${c.token}` };
  const body = (s: Side) =>
    JSON.stringify({
      projectId: s.projectId,
      entryType: 'EXPENSE',
      baseCurrency: 'USD',
      amountCents: 1_044, // rule 44 (amount eq)
      entryDate: '2026-01-15',
      description: 'order 7 from the shop feed 11', // rule 11 (matches)
      reference: 'INV-700', // rule 7 (startsWith)
    });
  const load = (s: Side, seconds: number) =>
    cannon({ url: `${c.server.base}/entries`, method: 'POST', headers: auth, body: body(s), seconds, connections: 10 });
  const half = (s: Side) => load(s, c.settings.seconds / 2);
  // both sides warmed (each workspace's first creates load its rules, scope and caches)
  for (const s of [ruled, plain]) await load(s, c.settings.warmupSeconds / 2);
  // halves in the order none, rules, rules, none, so that drift (autovacuum after the inserts, a growing table, a
  // shared machine) hits both sides alike: measured one after the other, the second side took all of it
  const runs = { plain: [] as Metered[], ruled: [] as Metered[] };
  for (const key of ['plain', 'ruled', 'ruled', 'plain'] as const)
    runs[key].push(await metered(c, () => half(key === 'ruled' ? ruled : plain)));
  const base = combineRuns(runs.plain);
  const ours = combineRuns(runs.ruled);
  return row(
    `POST /entries: ${RULES} rules vs none`,
    'req/s',
    ours,
    base,
    'alternating halves (none, rules, rules, none); the entry matches several rules (category, tags, RULE_APPLIED events)',
  );
}

/** Both rows share the two workspaces (created once). */
export function rulesScenarios(c: BenchContext): { ingest: () => Promise<ResultRow>; post: () => Promise<ResultRow> } {
  let sides: Promise<{ ruled: Side; plain: Side }> | undefined;
  const ready = () => (sides ??= (async () => ({ ruled: await side(c, true), plain: await side(c, false) }))());
  return {
    ingest: async () => {
      const { ruled, plain } = await ready();
      return ingestWithRules(c, ruled, plain);
    },
    post: async () => {
      const { ruled, plain } = await ready();
      return postWithRules(c, ruled, plain);
    },
  };
}
