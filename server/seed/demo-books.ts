import { QueryTypes } from 'sequelize';
import { db } from '../db/database.js';
import type { Actor } from '../lib/scope.js';
import type { AccountType } from '../../shared/contracts/accounting.js';
import { createCategory } from '../domains/accounting/index.js';
import { postManualJournal } from '../domains/books/index.js';
import type { DemoWorkspace } from './demo-entries.js';

/** code, name, type, parent code: the demo's chart of accounts, with an account for each role of the books (CONTRACT §23). */
const CHART: [string, string, AccountType, string | null][] = [
  ['1000', 'Assets', 'ASSET', null],
  ['1100', 'Bank accounts', 'ASSET', '1000'],
  ['1200', 'Accounts receivable', 'ASSET', '1000'],
  ['2000', 'Liabilities', 'LIABILITY', null],
  ['2100', 'Accounts payable', 'LIABILITY', '2000'],
  ['3000', 'Equity', 'EQUITY', null],
  ['3100', 'Retained earnings', 'EQUITY', '3000'],
  ['3200', 'Opening balance equity', 'EQUITY', '3000'],
  ['3300', 'Owner capital', 'EQUITY', '3000'],
  ['4000', 'Revenue', 'REVENUE', null],
  ['4100', 'Consulting revenue', 'REVENUE', '4000'],
  ['4200', 'Licence revenue', 'REVENUE', '4000'],
  ['6000', 'Operating expenses', 'EXPENSE', null],
  ['6100', 'Rent', 'EXPENSE', '6000'],
  ['6200', 'Software and hosting', 'EXPENSE', '6000'],
  ['6300', 'Travel', 'EXPENSE', '6000'],
];

/** The account of each role: entries without a category post to Revenue / Operating expenses, bank lines to Bank accounts. */
const ROLES: Record<string, string> = {
  BANK: '1100',
  RECEIVABLE: '1200',
  PAYABLE: '2100',
  REVENUE: '4000',
  EXPENSE: '6000',
  OPENING_BALANCE: '3200',
  RETAINED_EARNINGS: '3100',
};

/**
 * The chart of accounts and the roles of the books, before any entry is seeded: the entries then post to
 * these readable accounts instead of accounts the books would create for the roles. Returns code → id.
 */
export async function seedDemoChart(actor: Actor, ws: DemoWorkspace): Promise<Map<string, string>> {
  const codes = new Map<string, string>();
  for (const [code, name, accountType, parent] of CHART) {
    const category = await createCategory(actor, {
      workspaceId: ws.workspaceId,
      code,
      name,
      accountType,
      parentId: parent ? codes.get(parent) : null,
    });
    codes.set(code, category.id);
  }
  // the seed's trusted path: the roles of a brand-new workspace, before its first posting (PUT /ledger/roles checks the same)
  await db().query(
    `INSERT INTO ledger_roles (workspace_id, role, category_id)
     SELECT :ws, r.role, r.category_id::uuid FROM jsonb_each_text(CAST(:roles AS jsonb)) AS r(role, category_id)`,
    {
      replacements: {
        ws: ws.workspaceId,
        roles: JSON.stringify(Object.fromEntries(Object.entries(ROLES).map(([r, c]) => [r, codes.get(c)]))),
      },
      type: QueryTypes.INSERT,
    },
  );
  return codes;
}

/**
 * A manual journal a reader can follow in the trial balance: the owner pays 25,000.00 of capital into the bank
 * (debit Bank accounts, credit Owner capital), dated `today`. The entries and bank matches posted the rest.
 */
export async function seedDemoBooks(actor: Actor, ws: DemoWorkspace, codes: ReadonlyMap<string, string>, today: Date): Promise<void> {
  await postManualJournal(actor, {
    workspaceId: ws.workspaceId,
    date: today.toISOString().slice(0, 10),
    description: 'Owner capital paid in',
    lines: [
      { categoryId: codes.get('1100')!, debitCents: 2_500_000, description: 'Transfer from the owner' },
      { categoryId: codes.get('3300')!, creditCents: 2_500_000 },
    ],
  });
}
