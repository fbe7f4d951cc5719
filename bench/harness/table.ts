import type { Metered } from './cpu.js';
import { summarize } from './load.js';

/** One row per scenario, printed as a table and written to bench/results.json. */
export type ResultRow = {
  scenario: string;
  /** what ours/baseline measure, e.g. "req/s", "ms (median)", "s", "rows/s" */
  unit: string;
  ours: number;
  baseline: number;
  /** ours ÷ baseline */
  ratio: number;
  /** latencies of ours, in ms */
  p50: number;
  p95: number;
  p99: number;
  baselineP95: number;
  peakRssMB: number;
  target: string;
  met: boolean;
  note?: string;
  /** CPU time per request of ours and of the baseline: the server process and PostgreSQL, in ms */
  cpuPerRequest?: { oursServerMs: number; oursDbMs: number; baseServerMs: number; baseDbMs: number };
  /**
   * The second baseline of the POST and detail rows (issue 53): the statements the route runs for that
   * request, replayed by a bare `node:http` + `pg` handler in one transaction per request (same-sql.ts).
   * `baseline`/`ratio` above stay the constant procedure's.
   */
  sameSql?: {
    perSecond: number;
    /** ours ÷ same-SQL */
    ratio: number;
    p95: number;
    min: number;
    met: boolean;
    serverCpuMs: number;
    dbCpuMs: number;
    errors: number;
  };
  /** the most ours could do if PostgreSQL had every core to itself (see databaseCeiling) */
  databaseCeiling?: { perSecond: number; ratio: number };
};

/**
 * The rate PostgreSQL's own CPU per request allows when it has every core of the machine and the server,
 * the load generator and everything else cost nothing: no server code can make ours faster than this.
 * `ratio` is that rate against the baseline's.
 */
export function databaseCeiling(ours: Metered, base: Metered, cores: number): { perSecond: number; ratio: number } | undefined {
  if (!(ours.dbCpuMs > 0)) return undefined;
  const perSecond = (cores * 1000) / ours.dbCpuMs;
  return { perSecond, ratio: perSecond / base.perSecond };
}

/**
 * Adds the same-SQL baseline to a throughput row: its rate and ratio, its CPU in the note, and its target
 * (ours ≥ `min` of it, nothing failed) to the row's, which is met only when both are.
 */
export function withSameSql(row: ResultRow, ours: Metered, same: Metered, min: number, plan: string): ResultRow {
  const ratio = ours.perSecond / same.perSecond;
  const met = ratio >= min && same.errors === 0 && ours.errors === 0;
  row.sameSql = {
    perSecond: same.perSecond,
    ratio,
    p95: same.p95,
    min,
    met,
    serverCpuMs: same.serverCpuMs,
    dbCpuMs: same.dbCpuMs,
    errors: same.errors,
  };
  row.target = `${row.target} (constant); ratio >= ${min} (same SQL)`;
  row.met = row.met && met;
  const failed = same.errors ? `; ${same.errors} failed responses (same SQL)` : '';
  row.note = [
    row.note,
    `same SQL (bare node:http + pg, ${plan}): ${same.perSecond.toFixed(0)} req/s, p95 ${same.p95.toFixed(1)} ms, CPU/request ${same.serverCpuMs.toFixed(2)} ms server + ${same.dbCpuMs.toFixed(2)} ms PostgreSQL${failed}`,
  ]
    .filter(Boolean)
    .join('; ');
  return row;
}

/** CPU per request of a metered ours (and baseline, when it is metered too), for rows built by hand. */
export const cpuOf = (ours: Metered, base?: Metered): ResultRow['cpuPerRequest'] => ({
  oursServerMs: ours.serverCpuMs,
  oursDbMs: ours.dbCpuMs,
  baseServerMs: base?.serverCpuMs ?? NaN,
  baseDbMs: base?.dbCpuMs ?? NaN,
});

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? (Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(digits)) : '-');

export function printTable(rows: ResultRow[], print: (line: string) => void): void {
  const header = [
    'scenario',
    'unit',
    'ours',
    'baseline',
    'ratio',
    'same SQL',
    'ratio SQL',
    'p50 ms',
    'p95 ms',
    'p99 ms',
    'base p95',
    'CPU ms srv+pg',
    'peak RSS MB',
    'target',
    'met',
  ];
  const cells = rows.map((r) => [
    r.scenario,
    r.unit,
    fmt(r.ours),
    fmt(r.baseline),
    r.ratio.toFixed(2),
    r.sameSql ? fmt(r.sameSql.perSecond) : '',
    r.sameSql ? r.sameSql.ratio.toFixed(2) : '',
    fmt(r.p50),
    fmt(r.p95),
    fmt(r.p99),
    fmt(r.baselineP95),
    r.cpuPerRequest ? `${r.cpuPerRequest.oursServerMs.toFixed(2)}+${r.cpuPerRequest.oursDbMs.toFixed(2)}` : '',
    fmt(r.peakRssMB, 0),
    r.target,
    r.met ? 'yes' : 'NO',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const left = new Set(['scenario', 'unit', 'target']);
  const line = (c: string[]) => c.map((v, i) => (left.has(header[i]) ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join(' | ');
  print(line(header));
  print(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const c of cells) print(line(c));
  for (const r of rows.filter((x) => x.note)) print(`  ${r.scenario}: ${r.note}`);
}

/** The latency target of every list scenario (issue 23: any filter, search and page depth). */
export const LIST_P95_TARGET_MS = 50;

/** A list scenario's row: ours against its same-run baseline, met when ours' p95 is within the target and nothing failed. */
export function listLatencyRow(
  scenario: string,
  ours: { perSecond: number; p50: number; p95: number; p99: number; errors: number; serverCpuMs?: number; dbCpuMs?: number },
  base: { perSecond: number; p95: number; errors: number; serverCpuMs?: number; dbCpuMs?: number },
  peakRssMB: number,
  notes: string[] = [],
): ResultRow {
  const failed = ours.errors || base.errors ? `${ours.errors} failed responses (ours), ${base.errors} (baseline)` : '';
  return {
    // CPU per request when ours was metered (every HTTP row is); a pg-side baseline has no server CPU (NaN)
    cpuPerRequest:
      ours.serverCpuMs === undefined
        ? undefined
        : {
            oursServerMs: ours.serverCpuMs,
            oursDbMs: ours.dbCpuMs ?? NaN,
            baseServerMs: base.serverCpuMs ?? NaN,
            baseDbMs: base.dbCpuMs ?? NaN,
          },
    scenario,
    unit: 'req/s',
    ours: ours.perSecond,
    baseline: base.perSecond,
    ratio: ours.perSecond / base.perSecond,
    p50: ours.p50,
    p95: ours.p95,
    p99: ours.p99,
    baselineP95: base.p95,
    peakRssMB,
    target: `p95 <= ${LIST_P95_TARGET_MS} ms`,
    met: ours.p95 <= LIST_P95_TARGET_MS && ours.errors + base.errors === 0,
    note: [failed, ...notes].filter(Boolean).join('; ') || undefined,
  };
}

/**
 * A load scenario's row: ours against its same-run baseline per second (requests unless `unit` says
 * otherwise), met at `ratio >= min` with no failures; `target` and the names of the two sides in the CPU
 * note can be worded for the scenario.
 */
export function throughputRow(
  scenario: string,
  ours: Metered,
  base: Metered,
  peakRssMB: number,
  min: number,
  notes: string[] = [],
  wording: { unit?: string; target?: string; sides?: [string, string] } = {},
): ResultRow {
  const [oursSide, baseSide] = wording.sides ?? ['ours', 'baseline'];
  const ratio = ours.perSecond / base.perSecond;
  const errors = ours.errors + base.errors;
  return {
    cpuPerRequest: { oursServerMs: ours.serverCpuMs, oursDbMs: ours.dbCpuMs, baseServerMs: base.serverCpuMs, baseDbMs: base.dbCpuMs },
    scenario,
    unit: wording.unit ?? 'req/s',
    ours: ours.perSecond,
    baseline: base.perSecond,
    ratio,
    p50: ours.p50,
    p95: ours.p95,
    p99: ours.p99,
    baselineP95: base.p95,
    peakRssMB,
    target: wording.target ?? `ratio >= ${min}`,
    met: ratio >= min && errors === 0,
    note: [
      ...notes,
      errors ? `${ours.errors} failed responses (${oursSide}), ${base.errors} (${baseSide})` : '',
      `CPU/request ${oursSide} ${ours.serverCpuMs.toFixed(2)} ms server + ${ours.dbCpuMs.toFixed(2)} ms PostgreSQL, ${baseSide} ${base.serverCpuMs.toFixed(2)} + ${base.dbCpuMs.toFixed(2)}`,
    ]
      .filter(Boolean)
      .join('; '),
  };
}

/**
 * A row of interleaved single runs (reports): medians of ours and of the baseline, met at `ratio <= max`;
 * `oursRuns`, ours' runs metered, give its CPU per request (and `baseRuns` the baseline's, when it is HTTP too).
 */
export function medianRow(
  scenario: string,
  oursMs: number[],
  baseMs: number[],
  peakRssMB: number,
  max: number,
  note: string,
  oursRuns: Metered[] = [],
  baseRuns: Metered[] = [],
): ResultRow {
  const cpu = (runs: Metered[], f: (m: Metered) => number) =>
    runs.length
      ? runs.reduce((n, m) => n + f(m) * m.requests, 0) /
        Math.max(
          1,
          runs.reduce((n, m) => n + m.requests, 0),
        )
      : NaN;
  const ours = summarize(oursMs, oursMs.reduce((a, b) => a + b, 0) / 1000);
  const base = summarize(baseMs, baseMs.reduce((a, b) => a + b, 0) / 1000);
  const ratio = ours.p50 / base.p50;
  return {
    scenario,
    unit: 'ms (median)',
    ours: ours.p50,
    baseline: base.p50,
    ratio,
    p50: ours.p50,
    p95: ours.p95,
    p99: ours.p99,
    baselineP95: base.p95,
    peakRssMB,
    target: `ratio <= ${max}`,
    met: ratio <= max,
    note,
    cpuPerRequest: oursRuns.length
      ? {
          oursServerMs: cpu(oursRuns, (m) => m.serverCpuMs),
          oursDbMs: cpu(oursRuns, (m) => m.dbCpuMs),
          baseServerMs: cpu(baseRuns, (m) => m.serverCpuMs),
          baseDbMs: cpu(baseRuns, (m) => m.dbCpuMs),
        }
      : undefined,
  };
}
