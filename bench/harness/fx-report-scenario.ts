/**
 * CONTRACT §17 speed: every report with normalize=true against the same report without it, in
 * the same run and over HTTP both (interleaved, so outside load hits both sides alike). The
 * normalised reports read the same index (entries_report_idx carries amount_base_cents).
 */
import pg from 'pg';
import { repeat } from './load.js';
import { metered, type Metered } from './cpu.js';
import type { ReportCase } from './report-sql.js';
import type { BenchContext } from './scenarios.js';
import { medianRow, type ResultRow } from './table.js';

/** The dataset's currencies (bench/generate-dataset.ts): USD base, EUR with daily rates, JPY left without (≈ 5 % unconverted). */
const EUR_FROM = '2023-12-25';
const EUR_TO = '2027-01-07';

/**
 * BENCH WORLD BUILDING: the generated dataset is inserted with SQL, past the ledger core that
 * values entries at create. Once per dataset: daily EUR rates, then every entry valued with the
 * service's own rule and conversion (fx_base_cents), then VACUUM so index-only scans stay so, and
 * REINDEX: the UPDATE of every row wrote a second tuple into every index (none of it is HOT), which
 * VACUUM frees but never gives back — a live table whose entries were valued at insert has no such
 * bloat (entries_bank_candidate_idx: 160 MB after the UPDATE, 76 MB rebuilt).
 */
export async function ensureValuations(url: string, workspaceId: number, log: (m: string) => void): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT count(*)::int AS n FROM fx_rates WHERE workspace_id = $1', [workspaceId]);
    if (rows[0].n > 0) return;
    log('  valuing the bench dataset (once): EUR rates, amount_base_cents, VACUUM');
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO fx_rates (workspace_id, currency, rate_date, rate, source)
       SELECT $1, 'EUR', d::date, round(1.05 + 0.05 * sin(extract(doy FROM d) / 58.0)::numeric, 6), 'IMPORT'
         FROM generate_series($2::date, $3::date, interval '1 day') d`,
      [workspaceId, EUR_FROM, EUR_TO],
    );
    await client.query(
      `UPDATE entries e
          SET fx_rate = trim_scale(v.rate)::text, fx_rate_date = v.rate_date,
              amount_base_cents = fx_base_cents(e.amount_cents, v.rate, CASE e.base_currency WHEN 'JPY' THEN 0 ELSE 2 END, 2)
         FROM (SELECT 'USD' AS currency, d::date AS day, 1::numeric AS rate, d::date AS rate_date
                 FROM generate_series($2::date, $3::date, interval '1 day') d
               UNION ALL
               SELECT 'EUR', f.rate_date, f.rate, f.rate_date FROM fx_rates f WHERE f.workspace_id = $1) v
        WHERE e.workspace_id = $1 AND e.base_currency = v.currency AND e.entry_date = v.day`,
      [workspaceId, EUR_FROM, EUR_TO],
    );
    await client.query('COMMIT');
    await client.query('VACUUM (ANALYZE) entries');
    await client.query('REINDEX TABLE entries');
  } finally {
    await client.end();
  }
}

export async function fxReportScenario(c: BenchContext, r: ReportCase): Promise<ResultRow> {
  const urlFor = (normalize: boolean) => {
    const url = new URL(r.path, c.server.base);
    for (const [k, v] of Object.entries({ workspaceId: c.dataset.workspaceId, ...r.query })) url.searchParams.set(k, String(v));
    if (normalize) url.searchParams.set('normalize', 'true');
    return url;
  };
  const fetchReport = (url: URL) => async () => {
    const res = await fetch(url, { headers: { authorization: `Bearer ${c.token}` } });
    const body = await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url.pathname}: ${res.status} ${Buffer.from(body).toString('utf8').slice(0, 300)}`);
  };
  const normalized = fetchReport(urlFor(true));
  const plain = fetchReport(urlFor(false));
  await normalized(); // warm-up, not counted
  await plain();
  const oursMs: number[] = [];
  const baseMs: number[] = [];
  const peak = c.server.watchRss();
  const runs = { ours: [] as Metered[], base: [] as Metered[] };
  for (let i = 0; i < c.settings.reportRuns; i++) {
    runs.ours.push(await metered(c, () => repeat(1, normalized)));
    oursMs.push(runs.ours[i].p50);
    runs.base.push(await metered(c, () => repeat(1, plain)));
    baseMs.push(runs.base[i].p50);
  }
  return medianRow(
    `report ${r.name} normalize=true vs plain`,
    oursMs,
    baseMs,
    peak(),
    1.25,
    'baseline: the same report without normalize, same run, over HTTP',
    runs.ours,
    runs.base,
  );
}
