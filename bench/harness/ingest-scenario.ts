/** POST /api/v1/ingest in 1,000-entry batches vs COPY FROM STDIN of the same rows. */
import pg from 'pg';
import { summarize, type LoadResult } from './load.js';
import { metered } from './cpu.js';
import { copyIn } from './copy.js';
import type { BenchContext } from './scenarios.js';
import { cpuOf, type ResultRow } from './table.js';

const BATCH = 1000;
/** concurrent ingest clients: one keeps one core busy at a time; two let the server and PostgreSQL overlap */
const STREAMS = 2;

type Item = {
  externalId: string;
  projectId: number;
  entryType: 'INCOME' | 'EXPENSE';
  amountCents: number;
  baseCurrency: string;
  entryDate: string;
  description: string;
  reference: string;
};

export function item(run: string, n: number, projectId: number): Item {
  return {
    externalId: `${run}-${n}`,
    projectId,
    entryType: n % 3 === 0 ? 'INCOME' : 'EXPENSE',
    amountCents: 100 + ((n * 7919) % 500_000),
    baseCurrency: 'EUR',
    entryDate: `2026-0${1 + (n % 9)}-${String(1 + (n % 28)).padStart(2, '0')}`,
    description: `Order ${n} from the shop feed`,
    reference: `INV-${n}`,
  };
}

export async function createIntegration(c: BenchContext): Promise<{ id: string; apiKey: string; entrySourceId: number }> {
  const res = await fetch(`${c.server.base}/integrations`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', authorization: `Bearer ${c.token}` },
    body: JSON.stringify({ workspaceId: c.writes.workspaceId, name: 'Bench feed', projectIds: [c.writes.projectId] }),
  });
  const body = (await res.json()) as { id: string; apiKey: string };
  if (res.status !== 200) throw new Error(`POST /integrations: ${res.status} ${JSON.stringify(body)}`);
  const client = new pg.Client({ connectionString: c.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ entry_source_id: number }>('SELECT entry_source_id FROM integrations WHERE id = $1', [body.id]);
    return { ...body, entrySourceId: rows[0].entry_source_id };
  } finally {
    await client.end();
  }
}

/** One POST /api/v1/ingest with the integration's key; throws unless every item was created. */
export async function ingestBatch(c: BenchContext, apiKey: string, items: unknown[]): Promise<void> {
  const res = await fetch(`${c.server.base}/api/v1/ingest`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': apiKey },
    body: JSON.stringify({ entries: items }),
  });
  const result = (await res.json()) as { created: number };
  if (res.status !== 200 || result.created !== items.length)
    throw new Error(`ingest: ${res.status} ${JSON.stringify(result).slice(0, 300)}`);
}

const csvField = (v: string | number) => (typeof v === 'number' ? String(v) : `"${v.replace(/"/g, '""')}"`);

export async function ingestScenario(c: BenchContext): Promise<ResultRow> {
  const integration = await createIntegration(c);
  const run = `bench-${Date.now()}`;
  const batches = Array.from({ length: c.settings.ingestBatches }, (_, b) =>
    Array.from({ length: BATCH }, (_, i) => item(run, b * BATCH + i, c.writes.projectId)),
  );
  const send = (items: Item[]) => ingestBatch(c, integration.apiKey, items);
  await send([item(`${run}-warm`, 0, c.writes.projectId)]); // warm-up, not counted
  // STREAMS clients each send their share of the batches one after the other
  const sendAll = async (): Promise<LoadResult> => {
    const latencies: number[] = [];
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: STREAMS }, async () => {
        while (next < batches.length) {
          const items = batches[next++];
          const t0 = performance.now();
          await send(items);
          latencies.push(performance.now() - t0);
        }
      }),
    );
    return summarize(latencies, (performance.now() - started) / 1000);
  };
  const peak = c.server.watchRss();
  const ours = await metered(c, sendAll);
  const peakRss = peak();
  const total = batches.length * BATCH;

  // the same rows, as ingest writes them (PENDING, this integration's source and id), under other external ids
  const lines = batches
    .flat()
    .map((it) =>
      [
        c.writes.workspaceId,
        it.projectId,
        integration.entrySourceId,
        it.entryType,
        'PENDING',
        it.baseCurrency,
        it.amountCents,
        it.entryDate,
        it.description,
        it.reference,
        integration.id,
        `copy-${it.externalId}`,
      ]
        .map(csvField)
        .join(','),
    );
  const copySeconds = (
    await copyIn(
      c.url,
      `COPY entries (workspace_id, project_id, entry_source_id, entry_type, entry_status, base_currency, amount_cents, entry_date, description, reference, integration_id, external_id) FROM STDIN WITH (FORMAT csv)`,
      lines.join('\n') + '\n',
    )
  ).seconds;
  const oursRate = total / ours.seconds;
  const baseRate = total / copySeconds;
  const ratio = oursRate / baseRate;
  return {
    cpuPerRequest: cpuOf(ours), // per batch (one POST /api/v1/ingest)
    scenario: `ingest ${batches.length} x ${BATCH} entries, ${STREAMS} clients`,
    unit: 'rows/s',
    ours: oursRate,
    baseline: baseRate,
    ratio,
    p50: ours.p50,
    p95: ours.p95,
    p99: ours.p99,
    baselineP95: NaN,
    peakRssMB: peakRss,
    target: 'ratio >= 0.25',
    met: ratio >= 0.25,
    note:
      `${STREAMS} clients each sending batches one after the other; p50/p95/p99 are per-batch latencies; ` +
      `CPU per batch ${ours.serverCpuMs.toFixed(0)} ms server + ${ours.dbCpuMs.toFixed(0)} ms PostgreSQL; ` +
      `COPY of all ${total.toLocaleString('en-US')} rows took ${copySeconds.toFixed(2)} s (incl. connecting)`,
  };
}
