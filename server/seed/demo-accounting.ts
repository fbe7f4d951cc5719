import { QueryTypes } from 'sequelize';
import { db } from '../db/database.js';
import type { Actor } from '../lib/scope.js';
import {
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

/**
 * A MANUAL connection that requires review, party and tax mappings (the chart of accounts is demo-books.ts'),
 * and a review queue with an item in every state — all through the accounting services.
 * The entries seed ran before this connection existed, so the reviews are created explicitly.
 */
export async function seedDemoAccounting(actor: Actor, ws: DemoWorkspace, codes: ReadonlyMap<string, string>): Promise<void> {
  const connection = await createConnection(actor, {
    workspaceId: ws.workspaceId,
    providerType: 'MANUAL',
    name: 'Manual bookkeeping',
    credentials: {},
    syncMode: 'MANUAL_PUSH',
    requireReview: true,
  });
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
