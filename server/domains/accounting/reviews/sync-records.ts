import { db, type Transaction } from '../../../db/database.js';
import { clock } from '../../../lib/clock.js';

/**
 * CONTRACT §9 "approval in MANUAL_PUSH: none → PENDING": the (connection, entry) sync record
 * a push will work from. A record that already exists (in any status) is left as it is.
 */
export async function ensurePendingSync(tx: Transaction, r: { workspaceId: number; connectionId: string; entryId: number }): Promise<void> {
  const now = clock.now();
  await db().query(
    `INSERT INTO accounting_syncs (workspace_id, connection_id, entry_id, status, created_at, updated_at)
     VALUES (:ws, :connectionId, :entryId, 'PENDING', :now, :now)
     ON CONFLICT ON CONSTRAINT accounting_syncs_connection_entry_key DO NOTHING`,
    { replacements: { ws: r.workspaceId, connectionId: r.connectionId, entryId: r.entryId, now }, transaction: tx },
  );
}
