import { createHash } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../db/database.js';
import { conflictColumns } from '../../db/distributed.js';
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
import { declaredEncoding, decodeText, sniffText } from './parsers/decode.js';
import { parseOfx } from './parsers/ofx.js';
import { IssueCollector, type ParsedLine, type ParseContext, type StatementHeader } from './parsers/types.js';
import { presentStatement, type StatementRow } from './statement-rows.js';
import { publish } from '../outbound-webhooks/index.js';

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

/**
 * The lines of one import, written as the parser hands them over: each batch is one
 * INSERT … SELECT FROM unnest(column arrays) ON CONFLICT (account, fingerprint) DO NOTHING into
 * bank_lines, inside the import's transaction. One batch is in flight while the parser reads the
 * next (the server parses while PostgreSQL writes); a refused file rolls every batch back.
 * The fingerprint of a line without a bank id is its tuple hash and its occurrence number among
 * the file's lines of that hash, in file order (two equal card payments of one day are two lines).
 */
class LineWriter {
  lineCount = 0;
  imported = 0;
  sumCents = 0;
  first: string | null = null;
  last: string | null = null;
  private readonly seen = new Map<string, number>();
  private inFlight: Promise<void> = Promise.resolve();
  private failure: unknown = null;

  constructor(
    private readonly tx: Transaction,
    private readonly fixed: [workspaceId: number, accountId: string, statementId: string, currency: string, createdAt: string],
  ) {}

  /** The LineSink: columns of the batch now, its INSERT once the previous batch's is done. */
  readonly sink = async (lines: ParsedLine[]): Promise<void> => {
    const n = lines.length;
    const cols = { date: new Array<string>(n), value: new Array<string | null>(n), amount: new Array<number>(n) };
    const text = {
      d: new Array<string | null>(n),
      cn: new Array<string | null>(n),
      ca: new Array<string | null>(n),
      r: new Array<string | null>(n),
      x: new Array<string | null>(n),
      f: new Array<string>(n),
    };
    for (let i = 0; i < n; i++) {
      const l = lines[i];
      cols.date[i] = l.bookingDate;
      cols.value[i] = l.valueDate;
      cols.amount[i] = l.amountCents;
      text.d[i] = l.description;
      text.cn[i] = l.counterpartyName;
      text.ca[i] = l.counterpartyAccount;
      text.r[i] = l.reference;
      text.x[i] = l.externalId;
      if (l.externalId !== null) text.f[i] = `id:${l.externalId}`;
      else {
        const hash = tupleHash(l);
        const k = (this.seen.get(hash) ?? 0) + 1;
        this.seen.set(hash, k);
        text.f[i] = `h:${hash}:${k}`;
      }
      this.sumCents += l.amountCents;
      if (this.first === null || l.bookingDate < this.first) this.first = l.bookingDate;
      if (this.last === null || l.bookingDate > this.last) this.last = l.bookingDate;
    }
    this.lineCount += n;
    await this.inFlight;
    if (this.failure) return;
    this.inFlight = this.insert([cols.date, cols.value, cols.amount, text.d, text.cn, text.ca, text.r, text.x, text.f]).then(
      (count) => void (this.imported += count),
      (err: unknown) => void (this.failure = err),
    );
  };

  private async insert(columns: unknown[][]): Promise<number> {
    const key = await conflictColumns('bank_account_id, fingerprint');
    const [{ n }] = await db().query<{ n: number }>(
      `WITH ins AS (
         INSERT INTO bank_lines (workspace_id, bank_account_id, statement_id, currency, created_at, booking_date, value_date, amount_cents,
           description, counterparty_name, counterparty_account, reference, external_id, fingerprint)
         SELECT $1::int, $2::uuid, $3::uuid, $4::text, $5::timestamptz, u.*
           FROM unnest($6::date[], $7::date[], $8::bigint[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[]) AS u
         ON CONFLICT ${key} DO NOTHING
         RETURNING 1)
       SELECT count(*)::int AS n FROM ins`,
      { bind: [...this.fixed, ...columns], type: QueryTypes.SELECT, transaction: this.tx },
    );
    return n;
  }

  /** Waits for the last batch; a database error of any batch is thrown here. */
  async done(): Promise<void> {
    await this.inFlight;
    if (this.failure) throw this.failure;
  }
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

/**
 * The file as text (CONTRACT §14): a CSV in its mapping's `encoding` (a UTF-16 byte-order mark
 * or else UTF-8 when it names none), XML and OFX by their byte-order mark and declared encoding.
 * A byte the encoding does not define is a 400 naming its line, never a replacement character.
 */
function fileText(format: StatementFormat, file: StatementFile, mapping: CsvMapping | null): string {
  const declared = format === 'CSV' && mapping?.encoding ? mapping.encoding : declaredEncoding(file.bytes, format);
  const decoded = typeof declared === 'string' ? decodeText(file.bytes, declared) : declared;
  if ('issue' in decoded)
    throw new AppError('BAD_REQUEST', `The statement cannot be read: ${decoded.issue.message}`, { issues: [decoded.issue] });
  return decoded.text;
}

async function parseInto(format: StatementFormat, text: string, mapping: CsvMapping | null, ctx: ParseContext): Promise<StatementHeader> {
  if (format === 'CSV') return parseCsv(text, mapping!, ctx);
  return format === 'OFX' ? parseOfx(text, ctx) : parseCamt053(text, ctx);
}

/**
 * POST /bank-accounts/{id}/statements (CONTRACT §14). The statement row first, then the file's
 * lines are parsed and written in batches (LineWriter) inside one transaction; any problem refuses
 * the whole file (400 with every line and problem) and the rollback leaves nothing. Each batch is an
 * INSERT … ON CONFLICT DO NOTHING on (account, fingerprint): duplicates — of earlier imports, of
 * this file, or of an import racing this one — are skipped and counted, never stored twice.
 */
export async function importStatement(
  actor: Actor,
  accountId: string,
  file: StatementFile,
  options: ImportOptions,
): Promise<StatementObject> {
  return transaction(async (tx) => {
    // a mapping to save takes the row's update lock up front (two savers never deadlock on share → update)
    const account = await loadAccount(actor, accountId, tx, options.csvMapping === undefined ? 'share' : 'update');
    assertActive(account);
    const mapping = mappingFor(account, options.csvMapping);
    const format = options.format ?? detectFormat(sniffText(file.bytes));
    if (format === 'CSV' && !mapping) throw badRequest('A CSV statement needs a csvMapping (none given, none saved on the account)');
    const text = fileText(format, file, mapping);
    const currency = account.currency.trim();
    const now = clock.now().toISOString();
    const sha256 = createHash('sha256').update(file.bytes).digest('hex');
    // counts, balances and period are set once the file is read (the row exists first: the lines reference it)
    const [statement] = await db().query<{ id: string }>(
      `INSERT INTO bank_statements (workspace_id, bank_account_id, format, file_name, sha256, line_count, imported_count, duplicate_count,
         imported_by, created_at)
       VALUES ($1, $2, $3, $4, $5, 0, 0, 0, $6, $7) RETURNING id`,
      {
        bind: [account.workspace_id, account.id, format, file.fileName?.slice(0, 255) || null, sha256, actor.userId, now],
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    const writer = new LineWriter(tx, [account.workspace_id, account.id, statement.id, currency, now]);
    const issues = new IssueCollector();
    const header = await parseInto(format, text, mapping, { currency, issues, sink: writer.sink });
    await writer.done();
    if (header.currency && header.currency !== currency && !issues.any)
      issues.add(1, `The statement is in ${header.currency}, the account in ${currency}`);
    if (issues.any) {
      const message = `The statement has ${issues.count} problem${issues.count === 1 ? '' : 's'}; nothing was imported`;
      throw new AppError('BAD_REQUEST', message, { issues: issues.list });
    }
    const imported = writer.imported;
    const autoMatched = account.auto_match && imported > 0 ? await autoMatchInTx(tx, account, statement.id) : 0;
    const [row] = await db().query<StatementRow>(
      `UPDATE bank_statements SET line_count = $2::int, imported_count = $3::int, duplicate_count = $2::int - $3::int, auto_matched_count = $4,
         opening_balance_cents = $5, closing_balance_cents = $6, period_start = $7, period_end = $8, lines_sum_cents = $9
        WHERE workspace_id = $10 AND id = $1 RETURNING *`,
      {
        bind: [
          statement.id,
          writer.lineCount,
          imported,
          autoMatched,
          header.openingBalanceCents,
          header.closingBalanceCents,
          header.periodStart ?? writer.first,
          header.periodEnd ?? writer.last,
          writer.sumCents,
          account.workspace_id,
        ],
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    if (options.csvMapping !== undefined && mapping) await saveCsvMapping(tx, account, mapping);
    const statementObject = presentStatement(row);
    await publish(tx, { workspaceId: account.workspace_id, type: 'bank_statement.imported', object: statementObject });
    return statementObject;
  });
}
