/**
 * Banking bench (CONTRACT §14 "Speed"): `npx tsx bench/bank-import.ts [--lines 100000] [--match 10000]`.
 * In-process against the bench database: import of a generated camt.053 and CSV of `--lines` lines
 * (lines/s, peak RSS growth) beside a same-run baseline (bare parse with a no-op sink; COPY of the same
 * rows into a scratch table), then auto-match of `--match` lines against as many entries.
 * Targets: import ≥ 20,000 lines/s, RSS growth < 150 MB, auto-match of 10,000 lines < 10 s.
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../server/config.js';
import { createLogger } from '../server/lib/logger.js';
import { resolveSecrets } from '../server/lib/secrets.js';
import { setRuntime } from '../server/runtime.js';
import type { Actor } from '../server/lib/scope.js';
import { PERMISSIONS } from '../shared/permissions.js';
import { openBenchDatabase } from './bench-db.js';
import { copyIn } from './harness/copy.js';
import { importStatement } from '../server/domains/banking/import.service.js';
import { autoMatch } from '../server/domains/banking/auto-match.js';
import { parseCamt053 } from '../server/domains/banking/parsers/camt053.js';
import { parseCsv } from '../server/domains/banking/parsers/csv.js';
import { IssueCollector } from '../server/domains/banking/parsers/types.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const LINES = arg('--lines', 100_000);
const MATCH = arg('--match', 10_000);

const day = (i: number) => new Date(Date.UTC(2026, 0, 1) + (i % 365) * 86_400_000).toISOString().slice(0, 10);
const amount = (i: number) => ((i % 2 ? -1 : 1) * (100 + ((i * 7919) % 900_000))) / 100;

function camt(n: number, offset = 0): string {
  const parts: string[] = [];
  for (let i = offset; i < offset + n; i++) {
    const a = amount(i);
    parts.push(
      `<Ntry><Amt Ccy="EUR">${Math.abs(a).toFixed(2)}</Amt><CdtDbtInd>${a < 0 ? 'DBIT' : 'CRDT'}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>` +
        `<BookgDt><Dt>${day(i)}</Dt></BookgDt><AcctSvcrRef>C${i}</AcctSvcrRef><NtryDtls><TxDtls><RltdPties><${a < 0 ? 'Cdtr' : 'Dbtr'}><Nm>Party ${i % 500}</Nm></${a < 0 ? 'Cdtr' : 'Dbtr'}></RltdPties>` +
        `<RmtInf><Ustrd>Invoice INV-${i}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>\n`,
    );
  }
  return `<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><Stmt><Acct><Ccy>EUR</Ccy></Acct>\n${parts.join('')}</Stmt></BkToCstmrStmt></Document>\n`;
}
function csv(n: number, offset = 0): string {
  const rows = ['Date;Amount;Text;Payee;Id'];
  for (let i = offset; i < offset + n; i++) rows.push(`${day(i)};${amount(i).toFixed(2).replace('.', ',')};Invoice INV-${i};Party ${i % 500};K${i}`);
  return rows.join('\n') + '\n';
}
const MAPPING = { dateColumn: 'Date', amountColumn: 'Amount', descriptionColumn: 'Text', counterpartyColumn: 'Payee', externalIdColumn: 'Id', dateFormat: 'YYYY-MM-DD' as const, decimalSeparator: ',' as const, hasHeader: true };

async function measure<T>(fn: () => Promise<T>): Promise<{ seconds: number; rssMb: number; result: T }> {
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const started = performance.now();
  const result = await fn();
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  return { seconds: (performance.now() - started) / 1000, rssMb: (peak - before) / 1048576, result };
}

async function main() {
  const bench = await openBenchDatabase({ poolMax: 4 });
  const secrets = { DATABASE_URL: bench.url, JWT_SECRET: randomBytes(32).toString('hex'), CREDENTIALS_KEYS: `bench:${randomBytes(32).toString('base64')}` };
  const config = loadConfig({ ...secrets, LOG_LEVEL: 'silent', SEED_DEMO: 'false' });
  setRuntime({ config, secrets: resolveSecrets(config), logger: createLogger('silent') });
  const q = (sql: string, bind: unknown[] = []) => bench.sequelize.query(sql, { bind, type: 'SELECT' as never }) as Promise<any[]>;
  try {
    const [ws] = await q(`INSERT INTO workspaces (name, base_currency) VALUES ('bank bench', 'EUR') RETURNING id`);
    const [project] = await q(`INSERT INTO projects (workspace_id, name) VALUES ($1, 'P') RETURNING id`, [ws.id]);
    const [source] = await q(`INSERT INTO entry_sources (workspace_id, kind, name) VALUES ($1, 'MANUAL', 'Manual') RETURNING id`, [ws.id]);
    const [user] = await q(`INSERT INTO users (email, name, password_hash, permissions, is_active) VALUES ($1, 'bench', 'x', $2, true) RETURNING id`, [`bank-${Date.now()}@bench.test`, [...PERMISSIONS]]);
    const actor: Actor = { kind: 'USER', userId: user.id, sessionId: 'bench', email: 'b', name: 'b', permissions: new Set(PERMISSIONS), workspaceIds: new Set([ws.id]), projectWorkspace: new Map() };
    const account = async (autoMatchOn: boolean) =>
      (await q(
        `WITH s AS (INSERT INTO entry_sources (workspace_id, kind, name) VALUES ($1, 'BANK', 'B') RETURNING id)
         INSERT INTO bank_accounts (workspace_id, name, currency, project_id, entry_source_id, auto_match) SELECT $1, 'B', 'EUR', $2, s.id, $3 FROM s RETURNING id`,
        [ws.id, project.id, autoMatchOn],
      ))[0].id as string;
    const rows: string[][] = [];
    for (const [format, text] of [['CAMT053', camt(LINES)], ['CSV', csv(LINES)]] as const) {
      const bytes = Buffer.from(text);
      const parse = await measure(async () => {
        const ctx = { currency: 'EUR', issues: new IssueCollector(), sink: async () => {} };
        return format === 'CSV' ? parseCsv(bytes, MAPPING, ctx) : parseCamt053(text, ctx);
      });
      const id = await account(false);
      const imp = await measure(() => importStatement(actor, id, { bytes, fileName: 'bench' }, { format, csvMapping: format === 'CSV' ? JSON.stringify(MAPPING) : undefined }));
      if (imp.result.importedCount !== LINES) throw new Error(`imported ${imp.result.importedCount}`);
      await q('CREATE TABLE IF NOT EXISTS bank_copy_baseline (d date, a bigint, t text, p text, x text)');
      await q('TRUNCATE bank_copy_baseline');
      const copyData = Array.from({ length: LINES }, (_, i) => `${day(i)}\t${Math.round(amount(i) * 100)}\tInvoice INV-${i}\tParty ${i % 500}\tK${i}`).join('\n') + '\n';
      const copy = await copyIn(bench.url, 'COPY bank_copy_baseline FROM STDIN', copyData);
      rows.push([format, `${Math.round(LINES / imp.seconds)} lines/s`, `${imp.rssMb.toFixed(0)} MB`, `parse only ${Math.round(LINES / parse.seconds)} lines/s (${parse.rssMb.toFixed(0)} MB)`, `COPY ${Math.round(LINES / copy.seconds)} rows/s`]);
    }
    // auto-match: MATCH entries and MATCH lines of the same amounts (one per day window)
    await q(
      `INSERT INTO entries (workspace_id, project_id, entry_source_id, entry_type, base_currency, amount_cents, entry_date)
       SELECT $1, $2, $3, CASE WHEN i % 2 = 1 THEN 'EXPENSE' ELSE 'INCOME' END, 'EUR', 100 + (i * 7919) % 900000, DATE '2026-01-01' + (i % 365)
         FROM generate_series(0, $4 - 1) AS i`,
      [ws.id, project.id, source.id, MATCH],
    );
    const matchAccount = await account(false);
    await importStatement(actor, matchAccount, { bytes: Buffer.from(camt(MATCH)), fileName: 'm' }, { format: 'CAMT053' });
    const [{ n: entryCount }] = await q('SELECT count(*)::int AS n FROM entries');
    const am = await measure(() => autoMatch(actor, matchAccount));
    rows.push(['auto-match', `${am.result.matched} of ${MATCH} lines in ${am.seconds.toFixed(2)} s`, `${am.rssMb.toFixed(0)} MB`, `${entryCount} entries in the bench database`, '']);
    console.log(`bank bench: ${LINES} lines per file, ${MATCH} lines to auto-match`);
    for (const r of rows) console.log(r.join(' | '));
    await q('DELETE FROM bank_lines WHERE workspace_id = $1', [ws.id]); // the bench database is reused: leave no bank rows behind
  } finally {
    await bench.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
