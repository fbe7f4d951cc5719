import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';
import { conflict } from '../../../lib/errors.js';
import { closedPeriodMessage, type EntryRow } from '../../entries/index.js';
import { coversProject, type ConnectionRow } from '../connections/connection-rows.js';
import { closedPeriodAt } from '../../periods/index.js';
import type { SyncRow } from './sync-rows.js';

/**
 * CONTRACT §9 push preconditions, each a 409 with nothing changed, checked under the push's
 * lock on the rows as they are now. The period lock is not held across the provider call (that
 * would stall period closing behind slow providers, and could deadlock with entry writers): a
 * period closing while a push is in flight does not undo that push.
 */
export async function assertPushAllowed(tx: Transaction, connection: ConnectionRow, entry: EntryRow, sync: SyncRow | null): Promise<void> {
  if (!connection.is_active) throw conflict('The connection is inactive; it cannot push');
  if (!coversProject(connection, entry.project_id)) throw conflict(`The connection does not cover the entry's project ${entry.project_id}`);
  if (entry.exclude_from_sync) throw conflict('The entry is excluded from sync (excludeFromSync)');
  if (connection.require_completeness_for_sync && !entry.is_complete) {
    throw conflict('The connection requires complete entries (requireCompletenessForSync) and the entry is not complete');
  }
  if (entry.entry_status === 'VOIDED' && !sync?.external_id)
    throw conflict('The entry is VOIDED and was never synced; there is nothing to push');
  const closed = await closedPeriodAt(tx, entry.workspace_id, entry.entry_date);
  if (closed) throw conflict(closedPeriodMessage(entry.entry_date, closed.name));
  if (connection.require_review && !(await hasApprovedReview(tx, connection.id, entry.id))) {
    throw conflict('The connection requires review (requireReview) and the entry has no APPROVED review for it');
  }
}

async function hasApprovedReview(tx: Transaction, connectionId: string, entryId: number): Promise<boolean> {
  const rows = await db().query(
    `SELECT 1 FROM accounting_reviews WHERE entry_id = :entryId AND connection_id = :connectionId AND status = 'APPROVED' LIMIT 1`,
    { replacements: { entryId, connectionId }, type: QueryTypes.SELECT, transaction: tx },
  );
  return rows.length > 0;
}
