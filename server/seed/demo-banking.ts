import { QueryTypes } from 'sequelize';
import { db } from '../db/database.js';
import type { Actor } from '../lib/scope.js';
import type { CsvMapping } from '../../shared/contracts/banking.js';
import { createAccount, importStatement, ignoreLine, listLines } from '../domains/banking/index.js';
import type { DemoWorkspace } from './demo-entries.js';

type Candidate = {
  id: number;
  entry_type: 'INCOME' | 'EXPENSE';
  amount_cents: number;
  entry_date: string;
  description: string | null;
  party: string | null;
};
type Line = { date: string; amountCents: number; description: string; counterparty: string; reference: string };

const MAPPING: CsvMapping = {
  dateColumn: 'Date',
  amountColumn: 'Amount',
  descriptionColumn: 'Description',
  counterpartyColumn: 'Counterparty',
  referenceColumn: 'Reference',
  dateFormat: 'YYYY-MM-DD',
  decimalSeparator: '.',
  delimiter: ',',
  hasHeader: true,
};

const cell = (v: string) => `"${v.replace(/"/g, '""')}"`;
const money = (cents: number) => (cents / 100).toFixed(2);
const dayDiff = (a: string, b: string) => Math.abs(Date.parse(a) - Date.parse(b)) / 86_400_000;

function statementCsv(lines: Line[]): Buffer {
  const rows = lines
    .sort((a, b) => a.date.localeCompare(b.date))
    .map((l) => [l.date, money(l.amountCents), cell(l.description), cell(l.counterparty), cell(l.reference)].join(','));
  return Buffer.from(['Date,Amount,Description,Counterparty,Reference', ...rows].join('\n') + '\n');
}

/**
 * A USD bank account with one imported CSV statement (CONTRACT §14), through the banking services:
 * three lines auto-matched to demo entries, one transfer paying two invoices at once (no single
 * entry has its amount: a group suggestion, left to a person), one bank fee ignored, and one card
 * payment with no entry (for "create entry from line").
 */
export async function seedDemoBanking(actor: Actor, ws: DemoWorkspace): Promise<void> {
  const account = await createAccount(actor, {
    workspaceId: ws.workspaceId,
    name: 'Operating account',
    currency: 'USD',
    projectId: ws.projectIds[0],
    partyId: ws.ownPartyId,
    accountNumber: 'US00 0000 0000 4242',
    autoMatch: true,
  });
  // live USD entries whose (type, amount) no other live USD entry has: auto-match takes them unambiguously
  const entries = await db().query<Candidate>(
    `SELECT e.id, e.entry_type, e.amount_cents, e.entry_date, e.description, p.name AS party
       FROM entries e LEFT JOIN parties p ON p.workspace_id = e.workspace_id AND p.id = CASE WHEN e.entry_type = 'INCOME' THEN e.from_party_id ELSE e.to_party_id END
      WHERE e.workspace_id = :ws AND e.base_currency = 'USD' AND NOT e.is_reconciled
        AND e.entry_status IN ('PENDING', 'UNDER_REVIEW', 'COMPLETED')
        AND (SELECT count(*) FROM entries o WHERE o.workspace_id = e.workspace_id AND o.base_currency = 'USD'
              AND o.entry_type = e.entry_type AND o.amount_cents = e.amount_cents) = 1
      ORDER BY e.entry_date DESC, e.id DESC`,
    { replacements: { ws: ws.workspaceId }, type: QueryTypes.SELECT },
  );
  const amounts = new Set(entries.map((e) => `${e.entry_type}:${e.amount_cents}`));
  const signed = (e: Candidate) => (e.entry_type === 'INCOME' ? e.amount_cents : -e.amount_cents);
  const lineOf = (e: Candidate): Line => ({
    date: e.entry_date,
    amountCents: signed(e),
    description: e.description ?? 'Transfer',
    counterparty: e.party ?? '',
    reference: '',
  });
  const matched = entries.slice(0, 3);
  const rest = entries.slice(3);
  // two entries of one type within two days whose sum no entry has: one transfer paying both
  const pair = rest.flatMap((a, i) =>
    rest
      .slice(i + 1)
      .filter(
        (b) =>
          b.entry_type === a.entry_type &&
          dayDiff(a.entry_date, b.entry_date) <= 2 &&
          !amounts.has(`${a.entry_type}:${a.amount_cents + b.amount_cents}`),
      )
      .map((b) => [a, b] as const),
  )[0];
  const lines: Line[] = matched.map(lineOf);
  if (pair) {
    const [a, b] = pair;
    lines.push({ ...lineOf(a), amountCents: signed(a) + signed(b), description: 'One transfer for two invoices' });
  }
  const lastDate = entries[0]?.entry_date ?? new Date().toISOString().slice(0, 10);
  lines.push({ date: lastDate, amountCents: -735, description: 'Account maintenance fee', counterparty: 'Demo Bank', reference: 'FEE' });
  lines.push({ date: lastDate, amountCents: -2340, description: 'Card payment', counterparty: 'Coffee Roasters', reference: 'CARD-0042' });
  await importStatement(
    actor,
    account.id,
    { bytes: statementCsv(lines), fileName: 'demo-statement.csv' },
    { format: 'CSV', csvMapping: JSON.stringify(MAPPING) },
  );
  const imported = await listLines(actor, { id: account.id, status: 'UNMATCHED', limit: 100, offset: 0 });
  const fee = imported.items.find((l) => l.reference === 'FEE');
  if (fee) await ignoreLine(actor, { id: fee.id, reason: 'Bank fee, booked monthly by the accountant' });
}
