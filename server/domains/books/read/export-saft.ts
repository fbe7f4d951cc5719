import { Readable } from 'node:stream';
import { Transaction as Tx } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';
import { todayUtc } from '../../../lib/dates.js';
import { currencyExponent, formatMinorUnits } from '../../../lib/money.js';
import { journalRange } from './export-csv.js';
import { AppError } from '../../../lib/errors.js';
import { balanceAsOfJoin, dayBefore, Params, select } from './sql.js';

/** Transactions read per statement while the file is written (keyset on date and id). */
const BATCH = 500;
const NS = 'urn:StandardAuditFile-Taxation-Financial:NO';

/** XML 1.0 text: escaped, characters XML cannot carry dropped, at most `max` characters (the schema's maxLength). */
function text(value: string | null | undefined, max: number): string {
  const clean = Array.from((value ?? '').replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, ''))
    .slice(0, max)
    .join('');
  return clean.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
const el = (name: string, value: string | null | undefined, max: number) => `<${name}>${text(value, max)}</${name}>`;

/** A sum of minor units read as text: exact at any size (a sum of many amounts near 10^15 passes 2^53). */
const minorUnits = (v: string | null | undefined): bigint => (v === null || v === undefined ? 0n : BigInt(v));

/** Minor units as SAFmonetaryType: the currency's decimal (formatMinorUnits) with exactly 2 fraction digits (a 3-decimal currency's third dropped). */
function money(minor: bigint, currency: string): string {
  const [whole, fraction = ''] = formatMinorUnits(minor, currency).split('.');
  return `${whole}.${fraction.padEnd(2, '0').slice(0, 2)}`;
}

/** SAFmonetaryType has at most 18 digits, 2 of them fractional: a whole part of 10^16 or more cannot be written (409, before any byte). */
function fitsSaft(minor: bigint, currency: string): void {
  const whole = (minor < 0n ? -minor : minor) / 10n ** BigInt(currencyExponent(currency));
  if (whole >= 10n ** 16n) {
    throw new AppError('CONFLICT', `A SAF-T amount (${money(minor, currency)}) has more than the schema's 18 digits; narrow the range`);
  }
}

type Context = { workspaceId: number; from: string; to: string; actorName: string };
type Workspace = { name: string; currency: string };
type AccountRow = {
  code: string;
  name: string;
  account_type: string;
  o_debit: string;
  o_credit: string;
  c_debit: string;
  c_credit: string;
};
type TxnRow = { id: string; date: string; posted: string; kind: string; entry_id: number | null; description: string | null };
type LineRow = { transaction_id: string; line_no: number; code: string; description: string | null; debit: string; credit: string };

function header(w: Workspace, c: Context): string {
  const [first, ...rest] = c.actorName.trim().split(/\s+/);
  return [
    `<?xml version="1.0" encoding="UTF-8"?>\n<AuditFile xmlns="${NS}">`,
    '<Header>',
    el('AuditFileVersion', '1.30', 9),
    el('AuditFileCountry', 'NO', 2),
    el('AuditFileDateCreated', todayUtc(), 10),
    el('SoftwareCompanyName', 'Finance Entries Service', 70),
    el('SoftwareID', 'finance-entries-service', 256),
    el('SoftwareVersion', '0.1.0', 18),
    '<Company>',
    el('RegistrationNumber', String(c.workspaceId), 35),
    el('Name', w.name, 256),
    `<Contact><ContactPerson>${el('FirstName', first || 'Unknown', 35)}${el('LastName', rest.join(' ') || first || 'Unknown', 70)}</ContactPerson></Contact>`,
    '</Company>',
    el('DefaultCurrencyCode', w.currency, 3),
    `<SelectionCriteria>${el('SelectionStartDate', c.from, 10)}${el('SelectionEndDate', c.to, 10)}</SelectionCriteria>`,
    el('TaxAccountingBasis', 'A', 18),
    '</Header>',
  ].join('\n');
}

function account(a: AccountRow, currency: string): string {
  const opening = minorUnits(a.o_debit) - minorUnits(a.o_credit);
  const closing = minorUnits(a.c_debit) - minorUnits(a.c_credit);
  return [
    '<Account>',
    el('AccountID', a.code, 70),
    el('AccountDescription', a.name, 256),
    el('GroupingCategory', 'FES-AccountType', 256),
    el('GroupingCode', a.account_type, 35),
    el('AccountType', 'GL', 18),
    opening >= 0n ? el('OpeningDebitBalance', money(opening, currency), 30) : el('OpeningCreditBalance', money(-opening, currency), 30),
    closing >= 0n ? el('ClosingDebitBalance', money(closing, currency), 30) : el('ClosingCreditBalance', money(-closing, currency), 30),
    '</Account>',
  ].join('');
}

function transaction(t: TxnRow, lines: LineRow[], currency: string): string {
  const description = t.description ?? `${t.kind}${t.entry_id === null ? '' : ` of entry ${t.entry_id}`}`;
  return [
    '<Transaction>',
    el('TransactionID', t.id, 70),
    el('Period', String(Number(t.date.slice(5, 7))), 4),
    el('PeriodYear', t.date.slice(0, 4), 4),
    el('TransactionDate', t.date, 10),
    el('TransactionType', t.kind, 18),
    el('Description', description, 256),
    el('SystemEntryDate', t.posted, 10),
    el('GLPostingDate', t.date, 10),
    ...lines.map((l) => {
      const debit = minorUnits(l.debit);
      const amount = money(debit > 0n ? debit : minorUnits(l.credit), currency);
      return [
        '<Line>',
        el('RecordID', String(l.line_no), 18),
        el('AccountID', l.code, 70),
        t.entry_id === null ? '' : el('SourceDocumentID', String(t.entry_id), 35),
        el('Description', l.description ?? description, 256),
        debit > 0n ? `<DebitAmount>${el('Amount', amount, 30)}</DebitAmount>` : `<CreditAmount>${el('Amount', amount, 30)}</CreditAmount>`,
        '</Line>',
      ].join('');
    }),
    '</Transaction>',
  ].join('');
}

type Totals = { n: string; debit: string; credit: string };
type Prelude = { w: Workspace; accounts: AccountRow[]; totals: Totals };

/** Everything before the transactions, read before the first byte is sent: what cannot be written is a 409, not a cut file. */
async function prelude(c: Context, tx: Transaction): Promise<Prelude> {
  const p0 = new Params();
  const [w] = await select<Workspace>(
    `SELECT name, base_currency::text AS currency FROM workspaces WHERE id = ${p0.add(c.workspaceId)}`,
    p0,
    tx,
  );
  const pa = new Params();
  const ws = pa.add(c.workspaceId);
  const accounts = await select<AccountRow>(
    `SELECT c.code, c.name, c.account_type, o.o_debit::text, o.o_credit::text, cl.cl_debit::text AS c_debit, cl.cl_credit::text AS c_credit
       FROM accounting_categories c ${balanceAsOfJoin(pa, dayBefore(c.from), 'o')} ${balanceAsOfJoin(pa, c.to, 'cl')}
      WHERE c.workspace_id = ${ws} AND (cl.cl_debit <> 0 OR cl.cl_credit <> 0) ORDER BY c.code`,
    pa,
    tx,
  );
  const pt = new Params();
  const range = journalRange(pt, c.workspaceId, c.from, c.to);
  const [totals] = await select<Totals>(
    `SELECT count(DISTINCT t.id)::text AS n, COALESCE(sum(l.debit_cents), 0)::text AS debit, COALESCE(sum(l.credit_cents), 0)::text AS credit
       FROM journal_transactions t JOIN journal_lines l ON l.workspace_id = t.workspace_id AND l.transaction_id = t.id WHERE ${range}`,
    pt,
    tx,
  );
  fitsSaft(minorUnits(totals.debit), w.currency);
  fitsSaft(minorUnits(totals.credit), w.currency);
  for (const a of accounts) {
    fitsSaft(minorUnits(a.o_debit) - minorUnits(a.o_credit), w.currency);
    fitsSaft(minorUnits(a.c_debit) - minorUnits(a.c_credit), w.currency);
  }
  return { w, accounts, totals };
}

async function* document(c: Context, { w, accounts, totals }: Prelude, tx: Transaction): AsyncGenerator<string> {
  yield header(w, c);
  if (accounts.length > 0)
    yield `\n<MasterFiles><GeneralLedgerAccounts>${accounts.map((a) => account(a, w.currency)).join('\n')}</GeneralLedgerAccounts></MasterFiles>`;
  yield `\n<GeneralLedgerEntries>${el('NumberOfEntries', totals.n, 20)}${el('TotalDebit', money(minorUnits(totals.debit), w.currency), 30)}${el('TotalCredit', money(minorUnits(totals.credit), w.currency), 30)}`;
  if (totals.n !== '0') {
    yield `\n<Journal>${el('JournalID', 'GL', 18)}${el('Description', 'General journal', 256)}${el('Type', 'GL', 9)}`;
    let after: { date: string; id: string } | undefined;
    for (;;) {
      const p = new Params();
      const where = journalRange(p, c.workspaceId, c.from, c.to);
      const keyset = after ? ` AND (t.txn_date, t.id) > (${p.add(after.date)}::date, ${p.add(after.id)}::bigint)` : '';
      const txns = await select<TxnRow>(
        `SELECT t.id::text, to_char(t.txn_date, 'YYYY-MM-DD') AS date, to_char(t.posted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS posted,
                t.kind, t.entry_id::int AS entry_id, t.description
           FROM journal_transactions t WHERE ${where}${keyset} ORDER BY t.txn_date, t.id LIMIT ${BATCH}`,
        p,
        tx,
      );
      if (txns.length === 0) break;
      const pl = new Params();
      const lines = await select<LineRow>(
        `SELECT l.transaction_id::text, l.line_no, c.code, l.description, l.debit_cents::text AS debit, l.credit_cents::text AS credit
           FROM journal_lines l JOIN accounting_categories c ON c.workspace_id = l.workspace_id AND c.id = l.category_id
          WHERE l.workspace_id = ${pl.add(c.workspaceId)} AND l.transaction_id = ANY(${pl.add(txns.map((t) => t.id))}::bigint[]) ORDER BY l.transaction_id, l.line_no`,
        pl,
        tx,
      );
      const byTxn = new Map<string, LineRow[]>();
      for (const l of lines) byTxn.set(l.transaction_id, [...(byTxn.get(l.transaction_id) ?? []), l]);
      yield '\n' + txns.map((t) => transaction(t, byTxn.get(t.id) ?? [], w.currency)).join('\n');
      const last = txns[txns.length - 1];
      after = { date: last.date, id: last.id };
      if (txns.length < BATCH) break;
    }
    yield '\n</Journal>';
  }
  yield '\n</GeneralLedgerEntries>\n</AuditFile>\n';
}

/** The first journal date of the workspace (the selection's start when `from` is not given), or `to`. */
async function firstDate(workspaceId: number, to: string, tx: Transaction): Promise<string> {
  const p = new Params();
  const [row] = await select<{ d: string | null }>(
    `SELECT to_char(min(txn_date), 'YYYY-MM-DD') AS d FROM journal_transactions WHERE workspace_id = ${p.add(workspaceId)}`,
    p,
    tx,
  );
  return row?.d && row.d < to ? row.d : to;
}

/**
 * GET /ledger/journal/export?format=saft: the SAF-T Financial 1.30 file of [from, to], written while it
 * is read: one read-only REPEATABLE READ snapshot (the totals in the header agree with the transactions
 * that follow), transactions fetched BATCH at a time by keyset, never the whole range in memory.
 */
export async function journalSaft(workspaceId: number, range: { from?: string; to?: string }, actorName: string): Promise<Readable> {
  const tx = await db().transaction({ isolationLevel: Tx.ISOLATION_LEVELS.REPEATABLE_READ, readOnly: true });
  try {
    const to = range.to ?? todayUtc();
    const from = range.from ?? (await firstDate(workspaceId, to, tx));
    const context = { workspaceId, from, to, actorName };
    const parts = document(context, await prelude(context, tx), tx);
    async function* guarded(): AsyncGenerator<string> {
      try {
        yield* parts;
      } finally {
        await tx.commit().catch(() => undefined);
      }
    }
    return Readable.from(guarded(), { objectMode: false, encoding: 'utf8' });
  } catch (err) {
    await tx.rollback().catch(() => undefined);
    throw err;
  }
}
