import { createHash } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import { AppError, badRequest, parseInput } from '../../lib/errors.js';
import type { Actor } from '../../lib/scope.js';
import { CsvMapping, type StatementFormat, type StatementObject } from '../../../shared/contracts/banking.js';
import { assertActive, loadAccount, type AccountRow } from './account-rows.js';
import { saveCsvMapping } from './accounts.service.js';
import { autoMatchInTx } from './auto-match.js';
import { parseCamt053 } from './parsers/camt053.js';
import { parseCsv } from './parsers/csv.js';
import { detectFormat } from './parsers/detect.js';
import { parseOfx } from './parsers/ofx.js';
import { IssueCollector, type ParsedLine, type ParseContext, type StatementHeader } from './parsers/types.js';
import { presentStatement, type StatementRow } from './statement-rows.js';

export type StatementFile = { bytes: Buffer; fileName: string | null };
export type ImportOptions = { format?: StatementFormat; csvMapping?: string };

const normalise = (s: string | null) => (s ?? '').toLowerCase().replace(/\s+/g, ' ').trim();

/** Hash of (booking date, amount, normalised description, counterparty): the fingerprint of a line without a bank id. */
function tupleHash(l: ParsedLine): string {
  return createHash('sha256')
    .update(JSON.stringify([l.bookingDate, l.amountCents, normalise(l.description), normalise(l.counterpartyName)]))
    .digest('base64url')
    .slice(0, 32);
}

/** Appends a batch of parsed lines to the import's temporary table (one statement per batch). */
async function stage(tx: Transaction, lines: ParsedLine[]): Promise<void> {
  const rows = lines.map((l) => ({ ...l, tupleHash: l.externalId ? null : tupleHash(l) }));
  await db().query(
    `INSERT INTO bank_import_stage
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS r("lineNo" int, "bookingDate" date, "valueDate" date, "amountCents" bigint,
       description text, "counterpartyName" text, "counterpartyAccount" text, reference text, "externalId" text, "tupleHash" text)`,
    { bind: [JSON.stringify(rows)], transaction: tx },
  );
}

function mappingFor(account: AccountRow, given: string | undefined): CsvMapping | null {
  if (given === undefined) return account.csv_mapping;
  let json: unknown;
  try {
    json = JSON.parse(given);
  } catch {
    throw badRequest('csvMapping is not valid JSON');
  }
  return parseInput(CsvMapping, json);
}

async function parseInto(format: StatementFormat, file: StatementFile, mapping: CsvMapping | null, ctx: ParseContext): Promise<StatementHeader> {
  if (format === 'CSV') {
    if (!mapping) throw badRequest('A CSV statement needs a csvMapping (none given, none saved on the account)');
    return parseCsv(file.bytes, mapping, ctx);
  }
  const text = file.bytes.toString('utf8');
  return format === 'OFX' ? parseOfx(text, ctx) : parseCamt053(text, ctx);
}

/**
 * POST /bank-accounts/{id}/statements (CONTRACT §14). The file is parsed in batches into a temporary
 * table of the transaction; any problem refuses the whole file (400 with every line and problem) and
 * the rollback leaves nothing. Then one INSERT … ON CONFLICT DO NOTHING on (account, fingerprint)
 * stores the new lines: duplicates — of earlier imports, of this file, or of an import racing this
 * one — are skipped and counted, never stored twice.
 */
export async function importStatement(actor: Actor, accountId: string, file: StatementFile, options: ImportOptions): Promise<StatementObject> {
  return transaction(async (tx) => {
    // a mapping to save takes the row's update lock up front (two savers never deadlock on share → update)
    const account = await loadAccount(actor, accountId, tx, options.csvMapping === undefined ? 'share' : 'update');
    assertActive(account);
    const mapping = mappingFor(account, options.csvMapping);
    const format = options.format ?? detectFormat(file.bytes.subarray(0, 8192).toString('utf8'));
    await db().query(
      `CREATE TEMPORARY TABLE bank_import_stage ("lineNo" int, "bookingDate" date, "valueDate" date, "amountCents" bigint,
         description text, "counterpartyName" text, "counterpartyAccount" text, reference text, "externalId" text, "tupleHash" text)
       ON COMMIT DROP`,
      { transaction: tx },
    );
    const issues = new IssueCollector();
    const currency = account.currency.trim();
    const header = await parseInto(format, file, mapping, { currency, issues, sink: (lines) => stage(tx, lines) });
    if (header.currency && header.currency !== currency && !issues.any) issues.add(1, `The statement is in ${header.currency}, the account in ${currency}`);
    if (issues.any) {
      const message = `The statement has ${issues.count} problem${issues.count === 1 ? '' : 's'}; nothing was imported`;
      throw new AppError('BAD_REQUEST', message, { issues: issues.list });
    }
    const [{ n: lineCount, total, first, last }] = await db().query<{ n: number; total: string; first: string | null; last: string | null }>(
      'SELECT count(*)::int AS n, COALESCE(sum("amountCents"), 0)::text AS total, min("bookingDate") AS first, max("bookingDate") AS last FROM bank_import_stage',
      { type: QueryTypes.SELECT, transaction: tx },
    );
    const sha256 = createHash('sha256').update(file.bytes).digest('hex');
    const [statement] = await db().query<{ id: string }>(
      `INSERT INTO bank_statements (workspace_id, bank_account_id, format, file_name, sha256, line_count, imported_count, duplicate_count,
         opening_balance_cents, closing_balance_cents, period_start, period_end, imported_by, created_at, lines_sum_cents)
       VALUES ($1, $2, $3, $4, $5, $6, 0, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id`,
      {
        bind: [
          account.workspace_id,
          account.id,
          format,
          file.fileName?.slice(0, 255) || null,
          sha256,
          lineCount,
          header.openingBalanceCents,
          header.closingBalanceCents,
          header.periodStart ?? first,
          header.periodEnd ?? last,
          actor.userId,
          clock.now().toISOString(),
          total,
        ],
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    const [{ imported }] = await db().query<{ imported: number }>(
      `WITH ins AS (
         INSERT INTO bank_lines (workspace_id, bank_account_id, statement_id, booking_date, value_date, amount_cents, currency,
           description, counterparty_name, counterparty_account, reference, external_id, fingerprint, created_at)
         SELECT $1, $2, $3, s."bookingDate", s."valueDate", s."amountCents", $4, s.description, s."counterpartyName",
                s."counterpartyAccount", s.reference, s."externalId",
                CASE WHEN s."externalId" IS NOT NULL THEN 'id:' || s."externalId"
                     ELSE 'h:' || s."tupleHash" || ':' || row_number() OVER (PARTITION BY s."tupleHash" ORDER BY s."lineNo") END,
                $5
           FROM bank_import_stage s ORDER BY s."lineNo"
         ON CONFLICT (bank_account_id, fingerprint) DO NOTHING
         RETURNING 1)
       SELECT count(*)::int AS imported FROM ins`,
      { bind: [account.workspace_id, account.id, statement.id, currency, clock.now().toISOString()], type: QueryTypes.SELECT, transaction: tx },
    );
    const autoMatched = account.auto_match && imported > 0 ? await autoMatchInTx(tx, account, statement.id) : 0;
    const [row] = await db().query<StatementRow>(
      `UPDATE bank_statements SET imported_count = $2, duplicate_count = line_count - $2, auto_matched_count = $3 WHERE id = $1 RETURNING *`,
      { bind: [statement.id, imported, autoMatched], type: QueryTypes.SELECT, transaction: tx },
    );
    if (options.csvMapping !== undefined && mapping) await saveCsvMapping(tx, account.id, mapping);
    return presentStatement(row);
  });
}
