import { QueryTypes } from 'sequelize';
import { db } from '../db/database.js';
import type { Actor } from '../lib/scope.js';
import type { AccountType } from '../../shared/contracts/accounting.js';
import {
  createCategory,
  createConnection,
  batchUpsertPartyMappings,
  createTaxMapping,
  approveReview,
  assignReview,
  rejectReview,
  requestChanges,
  createReview,
} from '../domains/accounting/index.js';
import type { DemoWorkspace } from './demo-entries.js';

/** code, name, type, parent code */
const CHART: [string, string, AccountType, string | null][] = [
  ['1000', 'Assets', 'ASSET', null],
  ['1100', 'Bank accounts', 'ASSET', '1000'],
  ['1200', 'Accounts receivable', 'ASSET', '1000'],
  ['2000', 'Liabilities', 'LIABILITY', null],
  ['2100', 'Accounts payable', 'LIABILITY', '2000'],
  ['3000', 'Equity', 'EQUITY', null],
  ['4000', 'Revenue', 'REVENUE', null],
  ['4100', 'Consulting revenue', 'REVENUE', '4000'],
  ['4200', 'Licence revenue', 'REVENUE', '4000'],
  ['6000', 'Operating expenses', 'EXPENSE', null],
  ['6100', 'Rent', 'EXPENSE', '6000'],
  ['6200', 'Software and hosting', 'EXPENSE', '6000'],
  ['6300', 'Travel', 'EXPENSE', '6000'],
];

/**
 * A MANUAL connection that requires review, a small chart of accounts, party and tax mappings,
 * and a review queue with an item in every state — all through the accounting services.
 * The entries seed ran before this connection existed, so the reviews are created explicitly.
 */
export async function seedDemoAccounting(actor: Actor, ws: DemoWorkspace): Promise<void> {
  const connection = await createConnection(actor, {
    workspaceId: ws.workspaceId,
    providerType: 'MANUAL',
    name: 'Manual bookkeeping',
    credentials: {},
    syncMode: 'MANUAL_PUSH',
    requireReview: true,
  });
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
  await batchUpsertPartyMappings(actor, {
    connectionId: connection.id,
    mappings: ws.partyIds.slice(0, 3).map((partyId, i) => ({
      partyId,
      externalId: `manual-party-${i + 1}`,
      externalType: i === 0 ? 'VENDOR' : 'CUSTOMER',
      externalName: `Ledger account ${i + 1}`,
    })),
  });
  await createTaxMapping(actor, {
    connectionId: connection.id,
    taxCode: 'VAT20',
    externalTaxCodeId: 'manual-vat-20',
    externalName: 'VAT 20%',
    ratePercent: 20,
  });

  const pending = await db().query<{ id: number }>(
    `SELECT id FROM entries WHERE workspace_id = :ws AND entry_status = 'PENDING' ORDER BY entry_date DESC, id DESC LIMIT 6`,
    { replacements: { ws: ws.workspaceId }, type: QueryTypes.SELECT },
  );
  const reviews = [];
  for (const entry of pending) reviews.push(await createReview(actor, { entryId: entry.id, connectionId: connection.id }));
  const [, inReview, approved, rejected, changes] = reviews; // the first (and the sixth) stay QUEUED
  if (inReview) await assignReview(actor, inReview.id);
  if (approved) await approveReview(actor, { id: approved.id, categoryId: codes.get('6200'), notes: 'Matches the invoice' });
  if (rejected) await rejectReview(actor, { id: rejected.id, notes: 'Duplicate of an earlier bill' });
  if (changes) await requestChanges(actor, { id: changes.id, notes: 'Please attach the receipt' });
}
