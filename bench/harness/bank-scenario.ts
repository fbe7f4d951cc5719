/**
 * Banking (issue 19, CONTRACT §14 "Speed"): POST /bank-accounts/{id}/statements of a generated
 * camt.053 and CSV (100,000 lines; 20,000 with --quick) in lines/s and the server's RSS growth,
 * beside the same run's baseline — the bare parse of the same file in this process plus COPY of the
 * same rows into a scratch table; and POST /bank-accounts/{id}/auto-match of 10,000 lines (2,000
 * with --quick) against the dataset workspace, beside the pair-finding query alone on a raw
 * connection. Every bank row the scenarios write is removed afterwards, and the dataset's entries
 * get their reconciliation flags back (their RECONCILED events stay: entry_events is append-only).
 */
import pg from 'pg';
import { PAIRS_SQL } from '../../server/domains/banking/auto-match.js';
import { parseCamt053 } from '../../server/domains/banking/parsers/camt053.js';
import { parseCsv } from '../../server/domains/banking/parsers/csv.js';
import { IssueCollector } from '../../server/domains/banking/parsers/types.js';
import { copyIn } from './copy.js';
import { metered } from './cpu.js';
import { summarize } from './load.js';
import type { BenchContext } from './scenarios.js';
import { cpuSecondsBetween, cpuSecondsByPid } from './server-process.js';
import type { ResultRow } from './table.js';

const IMPORT_TARGET = 20_000; // lines/s
const RSS_TARGET_MB = 150;
const MATCH_SECONDS_PER_10K = 10;

type Sizes = { lines: number; match: number };
const sizes = (c: BenchContext): Sizes =>
  c.settings.entries >= 1_000_000 ? { lines: 100_000, match: 10_000 } : { lines: 20_000, match: 2_000 };

type Line = { date: string; cents: number; text: string; party: string; id: string };

const day = (i: number) => new Date(Date.UTC(2026, 0, 1) + (i % 365) * 86_400_000).toISOString().slice(0, 10);
function generated(n: number, run: string): Line[] {
  return Array.from({ length: n }, (_, i) => ({
    date: day(i),
    cents: (i % 2 ? -1 : 1) * (100 + ((i * 7919) % 900_000)),
    text: `Invoice INV-${i}`,
    party: `Party ${i % 500}`,
    id: `${run}-${i}`,
  }));
}

const decimal = (cents: number) => (Math.abs(cents) / 100).toFixed(2);

/** A camt.053.001.02 statement, one booked Ntry per line (lean enough that 100,000 lines fit the default 25 MiB upload limit). */
function camt(lines: Line[], ccy: string): string {
  const parts = lines.map(
    (l) =>
      `<Ntry><Amt Ccy="${ccy}">${decimal(l.cents)}</Amt><CdtDbtInd>${l.cents < 0 ? 'DBIT' : 'CRDT'}</CdtDbtInd>` +
      `<BookgDt><Dt>${l.date}</Dt></BookgDt><AcctSvcrRef>${l.id}</AcctSvcrRef><NtryDtls><TxDtls><RmtInf><Ustrd>${l.text} ${l.party}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>\n`,
  );
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><Stmt><Id>S</Id>` +
    `<Acct><Ccy>${ccy}</Ccy></Acct>\n${parts.join('')}</Stmt></BkToCstmrStmt></Document>\n`
  );
}

const CSV_MAPPING = {
  dateColumn: 'Date',
  amountColumn: 'Amount',
  descriptionColumn: 'Text',
  counterpartyColumn: 'Payee',
  externalIdColumn: 'Id',
  dateFormat: 'YYYY-MM-DD' as const,
  decimalSeparator: ',' as const,
  hasHeader: true,
};
function csv(lines: Line[]): string {
  const rows = lines.map((l) => `${l.date};${(l.cents / 100).toFixed(2).replace('.', ',')};${l.text};${l.party};${l.id}`);
  return ['Date;Amount;Text;Payee;Id', ...rows].join('\n') + '\n';
}

async function call<T>(c: BenchContext, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${c.server.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${c.token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

type Account = { id: string; dateToleranceDays: number };
const createAccount = (c: BenchContext, workspaceId: number, projectId: number, currency: string) =>
  call<Account>(c, 'POST', '/bank-accounts', { workspaceId, name: `Bench ${Date.now()}`, currency, projectId, autoMatch: false });

async function upload(
  c: BenchContext,
  accountId: string,
  bytes: Buffer,
  format: 'CAMT053' | 'CSV',
): Promise<{ lineCount: number; importedCount: number }> {
  const form = new FormData();
  form.append('file', new Blob([bytes]), format === 'CSV' ? 'statement.csv' : 'statement.xml');
  form.append('format', format);
  if (format === 'CSV') form.append('csvMapping', JSON.stringify(CSV_MAPPING));
  const res = await fetch(`${c.server.base}/bank-accounts/${accountId}/statements`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.token}` },
    body: form,
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`import ${format}: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as { lineCount: number; importedCount: number };
}

/** Removes an account's lines, matches and statements; gives matched entries their flag back. */
async function clean(url: string, accountId: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query('DELETE FROM bank_lines WHERE bank_account_id = $1', [accountId]);
    await client.query(
      `WITH gone AS (DELETE FROM bank_match_entries WHERE match_id IN (SELECT id FROM bank_matches WHERE bank_account_id = $1) RETURNING entry_id)
       UPDATE entries SET is_reconciled = false, reconciled_at = NULL, reconciled_by = NULL WHERE id IN (SELECT entry_id FROM gone)`,
      [accountId],
    );
    await client.query('DELETE FROM bank_matches WHERE bank_account_id = $1', [accountId]);
    await client.query('DELETE FROM bank_statements WHERE bank_account_id = $1', [accountId]);
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
}

async function importScenario(c: BenchContext, format: 'CAMT053' | 'CSV'): Promise<ResultRow> {
  const n = sizes(c).lines;
  const lines = generated(n, `${format[0]}${Date.now().toString(36)}`);
  const bytes = Buffer.from(format === 'CSV' ? csv(lines) : camt(lines, 'EUR'));
  const account = await createAccount(c, c.writes.workspaceId, c.writes.projectId, 'EUR');

  // baseline 1: the bare parse of the same file, in this process, lines handed to a no-op sink
  const cpu0 = process.cpuUsage();
  const p0 = performance.now();
  let parsed = 0;
  const ctx = { currency: 'EUR', issues: new IssueCollector(), sink: async (batch: unknown[]) => void (parsed += batch.length) };
  if (format === 'CSV') await parseCsv(bytes.toString('utf8'), CSV_MAPPING, ctx);
  else await parseCamt053(bytes.toString('utf8'), ctx);
  const parseSeconds = (performance.now() - p0) / 1000;
  const parseCpu = process.cpuUsage(cpu0);
  if (parsed !== n || ctx.issues.any) throw new Error(`bare parse of the ${format} file: ${parsed} lines, ${ctx.issues.count} problems`);

  // ours: the import over HTTP
  const rssBefore = c.server.rssMB();
  const peak = c.server.watchRss();
  const ours = await metered(c, async () => {
    const t0 = performance.now();
    const st = await upload(c, account.id, bytes, format);
    if (st.importedCount !== n) throw new Error(`import ${format}: ${st.importedCount} of ${n} lines imported`);
    const ms = performance.now() - t0;
    return summarize([ms], ms / 1000);
  });
  const peakRss = peak();
  const growth = peakRss - rssBefore;
  await clean(c.url, account.id);

  // baseline 2: COPY of the same rows into a scratch table
  const setup = new pg.Client({ connectionString: c.url });
  await setup.connect();
  await setup.query(
    'CREATE TABLE IF NOT EXISTS bench_bank_copy (booking_date date, amount_cents bigint, description text, counterparty_name text, external_id text)',
  );
  await setup.query('TRUNCATE bench_bank_copy');
  await setup.end();
  const tsv = lines.map((l) => `${l.date}\t${l.cents}\t${l.text}\t${l.party}\t${l.id}`).join('\n') + '\n';
  const db0 = c.postgresPid ? cpuSecondsByPid(c.postgresPid) : undefined;
  const copySeconds = (await copyIn(c.url, 'COPY bench_bank_copy FROM STDIN', tsv)).seconds;
  const db1 = c.postgresPid ? cpuSecondsByPid(c.postgresPid) : undefined;

  const oursRate = n / ours.seconds;
  const baseRate = n / (parseSeconds + copySeconds);
  const name = format === 'CSV' ? 'CSV' : 'camt.053';
  return {
    scenario: `bank import ${name} ${n.toLocaleString('en-US')} lines (${(bytes.length / 1048576).toFixed(1)} MB)`,
    unit: 'lines/s',
    ours: oursRate,
    baseline: baseRate,
    ratio: oursRate / baseRate,
    p50: ours.p50,
    p95: ours.p95,
    p99: ours.p99,
    baselineP95: NaN,
    peakRssMB: peakRss,
    target: `>= ${IMPORT_TARGET.toLocaleString('en-US')} lines/s, RSS growth < ${RSS_TARGET_MB} MB`,
    met: oursRate >= IMPORT_TARGET && growth < RSS_TARGET_MB,
    cpuPerRequest: {
      oursServerMs: ours.serverCpuMs,
      oursDbMs: ours.dbCpuMs,
      baseServerMs: (parseCpu.user + parseCpu.system) / 1000,
      baseDbMs: db0 && db1 ? cpuSecondsBetween(db0, db1) * 1000 : NaN,
    },
    note:
      `server RSS ${rssBefore.toFixed(0)} → peak ${peakRss.toFixed(0)} MB (growth ${growth.toFixed(0)} MB); ` +
      `baseline = bare parse ${Math.round(n / parseSeconds).toLocaleString('en-US')} lines/s (${parseSeconds.toFixed(2)} s) + ` +
      `COPY into a scratch table ${Math.round(n / copySeconds).toLocaleString('en-US')} rows/s (${copySeconds.toFixed(2)} s); ` +
      `CPU per import ${ours.serverCpuMs.toFixed(0)} ms server + ${ours.dbCpuMs.toFixed(0)} ms PostgreSQL, ` +
      `baseline ${((parseCpu.user + parseCpu.system) / 1000).toFixed(0)} ms parse + ${db0 && db1 ? (cpuSecondsBetween(db0, db1) * 1000).toFixed(0) : '-'} ms PostgreSQL`,
  };
}

/**
 * `m` lines paired with `m` live, unreconciled, unmatched entries of the dataset workspace that have
 * no other live entry of their currency, type and amount within twice the date tolerance: every
 * line has exactly one candidate and every entry exactly one line, so all of them are matched.
 */
async function autoMatchScenario(c: BenchContext): Promise<ResultRow> {
  const m = sizes(c).match;
  const ws = c.dataset.workspaceId;
  const currency = 'USD'; // the dataset's base currency (80 % of its entries)
  const account = await createAccount(c, ws, c.dataset.projectIds[0], currency);
  const client = new pg.Client({ connectionString: c.url });
  await client.connect();
  try {
    const live = `('PENDING', 'UNDER_REVIEW', 'COMPLETED')`;
    const { rows: picked } = await client.query<{ entry_type: string; amount_cents: string; entry_date: string }>(
      `SELECT e.entry_type, e.amount_cents, e.entry_date::text AS entry_date FROM entries e
        WHERE e.workspace_id = $1 AND e.base_currency = $2 AND e.entry_status IN ${live} AND NOT e.is_reconciled
          AND NOT EXISTS (SELECT 1 FROM bank_match_entries me WHERE me.entry_id = e.id)
          AND NOT EXISTS (SELECT 1 FROM entries o
                           WHERE o.workspace_id = e.workspace_id AND o.base_currency = e.base_currency AND o.entry_type = e.entry_type
                             AND o.amount_cents = e.amount_cents AND o.entry_status IN ${live} AND o.id <> e.id
                             AND o.entry_date BETWEEN e.entry_date - 2 * $3::int AND e.entry_date + 2 * $3::int)
        ORDER BY e.id LIMIT $4`,
      [ws, currency, account.dateToleranceDays, m],
    );
    if (picked.length < m) throw new Error(`auto-match: only ${picked.length} unambiguous entries in the dataset workspace`);
    const run = `M${Date.now().toString(36)}`;
    const lines: Line[] = picked.map((e, i) => ({
      date: e.entry_date,
      cents: (e.entry_type === 'INCOME' ? 1 : -1) * Number(e.amount_cents),
      text: `Payment ${i}`,
      party: 'Bench',
      id: `${run}-${i}`,
    }));
    const st = await upload(c, account.id, Buffer.from(camt(lines, currency)), 'CAMT053');
    if (st.importedCount !== m) throw new Error(`auto-match statement: ${st.importedCount} of ${m} lines imported`);

    // baseline: the pair-finding query of auto-match alone, on a raw connection (read-only)
    await client.query('ANALYZE bank_lines');
    const b0 = performance.now();
    const { rowCount: pairs } = await client.query(PAIRS_SQL, [account.id, ws, currency, account.dateToleranceDays, null]);
    const baseSeconds = (performance.now() - b0) / 1000;

    let matched = 0;
    const peak = c.server.watchRss();
    const ours = await metered(c, async () => {
      const t0 = performance.now();
      matched = (await call<{ matched: number }>(c, 'POST', `/bank-accounts/${account.id}/auto-match`)).matched;
      const ms = performance.now() - t0;
      return summarize([ms], ms / 1000);
    });
    const peakRss = peak();
    await clean(c.url, account.id);
    const limit = (MATCH_SECONDS_PER_10K * m) / 10_000;
    return {
      scenario: `bank auto-match ${m.toLocaleString('en-US')} lines in the ${c.dataset.entries.toLocaleString('en-US')}-entry workspace`,
      unit: 's',
      ours: ours.seconds,
      baseline: baseSeconds,
      ratio: ours.seconds / baseSeconds,
      p50: ours.p50,
      p95: ours.p95,
      p99: ours.p99,
      baselineP95: NaN,
      peakRssMB: peakRss,
      target: `< ${limit} s, all ${m.toLocaleString('en-US')} matched`,
      met: ours.seconds < limit && matched === m,
      cpuPerRequest: { oursServerMs: ours.serverCpuMs, oursDbMs: ours.dbCpuMs, baseServerMs: NaN, baseDbMs: NaN },
      note:
        `${matched} of ${m} lines matched (the baseline query found ${pairs} pairs); baseline = the pair-finding query alone; ` +
        `CPU ${ours.serverCpuMs.toFixed(0)} ms server + ${ours.dbCpuMs.toFixed(0)} ms PostgreSQL`,
    };
  } finally {
    await client.end();
  }
}

/** The bank steps of runScenarios, as [name, run] pairs. */
export function bankScenarios(c: BenchContext): [string, () => Promise<ResultRow>][] {
  return [
    ['bank import camt.053', () => importScenario(c, 'CAMT053')],
    ['bank import CSV', () => importScenario(c, 'CSV')],
    ['bank auto-match', () => autoMatchScenario(c)],
  ];
}
