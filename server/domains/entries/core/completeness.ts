import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';

/**
 * CONTRACT §6: an entry is complete when it has at least one APPROVED document of type BASIS
 * (CREDIT_NOTE for an entry that is a refund, i.e. the derived entry of a REFUND link) and no
 * document in REQUESTED. Run inside the transaction of every document change; updated_at
 * moves only when the flag flips. Returns the new value.
 */
export async function recomputeCompleteness(tx: Transaction, entry: { id: number; workspace_id: number }, now: Date): Promise<boolean> {
  const [row] = await db().query<{ is_complete: boolean }>(
    `WITH required AS (
       SELECT CASE WHEN EXISTS (SELECT 1 FROM entry_links WHERE workspace_id = :ws AND derived_entry_id = :entryId AND link_type = 'REFUND')
                   THEN 'CREDIT_NOTE' ELSE 'BASIS' END AS document_type
     ), verdict AS (
       SELECT EXISTS (SELECT 1 FROM entry_documents d, required r
                       WHERE d.workspace_id = :ws AND d.entry_id = :entryId AND d.status = 'APPROVED' AND d.document_type = r.document_type)
          AND NOT EXISTS (SELECT 1 FROM entry_documents WHERE workspace_id = :ws AND entry_id = :entryId AND status = 'REQUESTED') AS complete
     )
     UPDATE entries e
        SET is_complete = v.complete,
            updated_at = CASE WHEN e.is_complete IS DISTINCT FROM v.complete THEN :now ELSE e.updated_at END
       FROM verdict v
      WHERE e.workspace_id = :ws AND e.id = :entryId
     RETURNING e.is_complete`,
    // every table named by the workspace: one shard group on Citus (CONTRACT §24)
    { replacements: { entryId: entry.id, ws: entry.workspace_id, now }, type: QueryTypes.SELECT, transaction: tx },
  );
  return row.is_complete;
}
