/**
 * CONTRACT §23 read models over the dataset's books (10 clients, p95): the trial balance and the balance sheet as
 * of a mid-month date (ledger_balances + that month's lines), and a general-ledger page 100,000 lines deep into the
 * busiest account (keyset cursor + a window over the page). Each baseline is the naive SQL on the same database:
 * summing every line up to the date, and an OFFSET page with a running sum over every line before it.
 */
import { execFile } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import type { Sequelize } from 'sequelize-typescript';
import { backfill } from '../../server/db/migrations/0045-books.js';
import { accountLinesCursor } from '../../server/domains/books/index.js';
import { metered } from './cpu.js';
import { ensureValuations } from './fx-report-scenario.js';
import { copyOut } from './copy.js';
import { cannon, loop, summarize } from './load.js';
import type { BenchContext } from './scenarios.js';
import { cpuOf, listLatencyRow, type ResultRow } from './table.js';

const CONNECTIONS = 10;
const DEPTH = 100_000;
const LIMIT = 20;

/** The dataset's entries are written by SQL, behind the ledger core: value them and post them once (the migration's backfill). */
export async function ensureBooks(sequelize: Sequelize, url: string, workspaceId: number, log: (m: string) => void): Promise<void> {
  const [[row]] = (await sequelize.query(
    `SELECT EXISTS (SELECT 1 FROM journal_lines WHERE workspace_id = ${Number(workspaceId)}) AS posted`,
  )) as [{ posted: boolean }[], unknown];
  if (row.posted) return;
  await ensureValuations(url, workspaceId, log); // an entry without its base amount posts nothing (CONTRACT §23)
  const t0 = performance.now();
  log('posting the dataset into the books (migration 0045 backfill)');
  await backfill(sequelize);
  log(`  posted in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

/** A mid-month day of the dataset's last month with lines: the partial month is as large as it gets. */
async function asOfDay(pool: pg.Pool, ws: number): Promise<string> {
  const { rows } = await pool.query(
    `SELECT to_char(date_trunc('month', max(txn_date)) + interval '14 days', 'YYYY-MM-DD') AS d FROM journal_transactions WHERE workspace_id = $1`,
    [ws],
  );
  return rows[0].d;
}

const NAIVE_BALANCES = `SELECT l.category_id, sum(l.debit_cents) AS d, sum(l.credit_cents) AS c
                          FROM journal_lines l WHERE l.workspace_id = $1 AND l.txn_date <= $2 GROUP BY l.category_id`;

async function statement(c: BenchContext, pool: pg.Pool, path: string, name: string): Promise<ResultRow> {
  const ws = c.dataset.workspaceId;
  const asOf = await asOfDay(pool, ws);
  const url = `${c.server.base}${path}?workspaceId=${ws}&asOf=${asOf}`;
  const auth = { authorization: `Bearer ${c.token}` };
  const res = await fetch(url, { headers: auth });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${(await res.text()).slice(0, 300)}`);
  await cannon({ url, headers: auth, seconds: c.settings.warmupSeconds, connections: CONNECTIONS });
  const peak = c.server.watchRss();
  const ours = await metered(c, () => cannon({ url, headers: auth, seconds: c.settings.listSeconds, connections: CONNECTIONS }));
  const peakRss = peak();
  const base = await loop(c.settings.listSeconds, CONNECTIONS, () => pool.query(NAIVE_BALANCES, [ws, asOf]));
  return listLatencyRow(`${name} as of ${asOf} (baseline: SQL summing every line up to the date)`, ours, base, peakRss);
}

async function deepLedgerPage(c: BenchContext, pool: pg.Pool): Promise<ResultRow> {
  const ws = c.dataset.workspaceId;
  const { rows: busiest } = await pool.query(
    `SELECT category_id::text AS id, count(*)::bigint AS n FROM journal_lines WHERE workspace_id = $1 GROUP BY category_id ORDER BY n DESC LIMIT 1`,
    [ws],
  );
  const categoryId: string = busiest[0].id;
  const depth = Math.min(DEPTH, Number(busiest[0].n) - LIMIT);
  const { rows: at } = await pool.query(
    `SELECT to_char(txn_date, 'YYYY-MM-DD') AS date, transaction_id::text AS t, line_no FROM journal_lines
      WHERE workspace_id = $1 AND category_id = $2 ORDER BY txn_date, transaction_id, line_no OFFSET $3 LIMIT 1`,
    [ws, categoryId, depth - 1],
  );
  const cursor = accountLinesCursor(ws, { categoryId }, { date: at[0].date, transactionId: Number(at[0].t), lineNo: at[0].line_no });
  const url = `${c.server.base}/ledger/accounts/${categoryId}/lines?limit=${LIMIT}&cursor=${encodeURIComponent(cursor)}`;
  const auth = { authorization: `Bearer ${c.token}` };
  const naive = `SELECT * FROM (SELECT l.transaction_id, l.debit_cents, l.credit_cents,
                        sum(l.debit_cents - l.credit_cents) OVER (ORDER BY l.txn_date, l.transaction_id, l.line_no) AS running
                   FROM journal_lines l WHERE l.workspace_id = $1 AND l.category_id = $2) x OFFSET $3 LIMIT $4`;
  // the same lines and running balances both ways (a wrong page would make a fast, useless number)
  const page = (await (await fetch(url, { headers: auth })).json()) as { items?: { balanceCents: number }[] };
  const { rows: expected } = await pool.query(naive, [ws, categoryId, depth, LIMIT]);
  if (page.items?.[0]?.balanceCents !== Number(expected[0].running))
    throw new Error('the deep general-ledger page and the naive SQL differ');
  await cannon({ url, headers: auth, seconds: c.settings.warmupSeconds, connections: CONNECTIONS });
  const peak = c.server.watchRss();
  const ours = await metered(c, () => cannon({ url, headers: auth, seconds: c.settings.listSeconds, connections: CONNECTIONS }));
  const peakRss = peak();
  const base = await loop(c.settings.listSeconds, CONNECTIONS, () => pool.query(naive, [ws, categoryId, depth, LIMIT]));
  return listLatencyRow(
    `GET /ledger/accounts/{id}/lines: page at depth ${depth.toLocaleString('en-US')} (baseline: OFFSET with a running sum over every line before)`,
    ours,
    base,
    peakRss,
  );
}

const XSD = fileURLToPath(new URL('../../../shared/samples/saft/Norwegian_SAF-T_Financial_Schema_v_1.30.xsd', import.meta.url));

/**
 * GET /ledger/journal/export?format=saft of the dataset's last full year, written to a file while it is read, then
 * validated against the SAF-T 1.30 XSD by xmllint (--stream: libxml2's reader, not a tree of the whole file). The
 * server's RSS growth while it streams is the row's target (issue 49: < 100 MB); the baseline is COPY of the same
 * lines as CSV, the floor of reading them at all.
 */
async function saftYear(c: BenchContext, pool: pg.Pool): Promise<ResultRow> {
  const ws = c.dataset.workspaceId;
  const { rows } = await pool.query(
    `SELECT extract(year FROM max(txn_date))::int - 1 AS y FROM journal_transactions WHERE workspace_id = $1`,
    [ws],
  );
  const year: number = rows[0].y;
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-saft-'));
  const file = path.join(dir, `saft-${year}.xml`);
  try {
    const rssBefore = c.server.rssMB();
    const peak = c.server.watchRss();
    const started = performance.now();
    const ours = await metered(c, async () => {
      const res = await fetch(`${c.server.base}/ledger/journal/export?workspaceId=${ws}&format=saft&from=${year}-01-01&to=${year}-12-31`, {
        headers: { authorization: `Bearer ${c.token}` },
      });
      if (res.status !== 200 || !res.body) throw new Error(`SAF-T export: ${res.status} ${await res.text()}`);
      await pipeline(Readable.fromWeb(res.body as never), createWriteStream(file));
      const ms = performance.now() - started;
      return summarize([ms], ms / 1000);
    });
    const seconds = (performance.now() - started) / 1000;
    const peakRss = peak();
    const growth = peakRss - rssBefore;
    const lint = await promisify(execFile)('xmllint', ['--noout', '--stream', '--schema', XSD, file], { maxBuffer: 1 << 20 }).then(
      () => 'valid against the SAF-T 1.30 XSD (xmllint --stream)',
      (err: { stderr?: string }) => `INVALID: ${String(err.stderr).slice(0, 300)}`,
    );
    const { rows: counted } = await pool.query(
      `SELECT count(*)::int AS n FROM journal_lines WHERE workspace_id = $1 AND txn_date BETWEEN $2 AND $3`,
      [ws, `${year}-01-01`, `${year}-12-31`],
    );
    const base = await copyOut(
      c.url,
      `COPY (SELECT transaction_id, txn_date, kind, entry_id, category_id, debit_cents, credit_cents, description FROM journal_lines
              WHERE workspace_id = ${Number(ws)} AND txn_date BETWEEN '${year}-01-01' AND '${year}-12-31' ORDER BY txn_date, transaction_id, line_no)
         TO STDOUT WITH (FORMAT csv)`,
    );
    const { size } = statSync(file);
    return {
      cpuPerRequest: cpuOf(ours), // the one export request
      scenario: `GET /ledger/journal/export?format=saft, ${year}: ${counted[0].n.toLocaleString('en-US')} lines (baseline: COPY of the lines)`,
      unit: 's',
      ours: seconds,
      baseline: base.seconds,
      ratio: seconds / base.seconds,
      p50: NaN,
      p95: NaN,
      p99: NaN,
      baselineP95: NaN,
      peakRssMB: peakRss,
      target: 'XSD-valid, RSS +<100 MB',
      met: lint.startsWith('valid') && growth < 100,
      note: `${lint}; ${(size / 1e6).toFixed(0)} MB; RSS ${rssBefore.toFixed(0)} -> peak ${peakRss.toFixed(0)} MB (+${growth.toFixed(0)} MB)`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The scenarios of this module, each as a named step (bench/harness/scenarios.ts runs them). */
export function booksScenarios(c: BenchContext, pool: pg.Pool): [string, () => Promise<ResultRow>][] {
  return [
    ['books: trial balance', () => statement(c, pool, '/ledger/trial-balance', 'GET /ledger/trial-balance')],
    ['books: balance sheet', () => statement(c, pool, '/reports/balance-sheet', 'GET /reports/balance-sheet')],
    ['books: general ledger page at depth', () => deepLedgerPage(c, pool)],
    ['books: SAF-T export of a year', () => saftYear(c, pool)],
  ];
}
