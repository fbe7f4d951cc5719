import { QueryTypes } from 'sequelize';
import { db, type Transaction } from './database.js';

/** A tenant table's row, addressed by its workspace and id. */
export type TenantRowKey = { id: number | string; workspace_id: number };

/**
 * The tables updated this way. Not the ledger's own: an entry's UPDATE stays written out in the ledger core
 * (entries/entry-rows.ts), where `../shared/tools/ledger-writes.mjs` sees that nothing else writes it (DESIGN §2a).
 */
export type UpdatedTable = 'accounting_reviews' | 'accounting_syncs' | 'entry_documents';

/**
 * Column → value changes of one row of a tenant table, applied with one UPDATE that also sets updated_at; the
 * row as it is now. The workspace routes the statement to one shard group on Citus (CONTRACT §24), not to every
 * shard. `casts` gives the SQL type of a column whose value is sent as text (e.g. `{ external_snapshot: 'jsonb' }`).
 * Column names come from the caller's code, never from a request.
 */
export async function updateTenantRow<Row extends object>(
  tx: Transaction,
  table: UpdatedTable,
  { id, workspace_id }: TenantRowKey,
  changes: Record<string, unknown>,
  now: Date,
  casts: Record<string, string> = {},
): Promise<Row> {
  const sets = Object.keys(changes).map((col) => (casts[col] ? `${col} = CAST(:${col} AS ${casts[col]})` : `${col} = :${col}`));
  const [row] = await db().query<Row>(
    `UPDATE ${table} SET ${[...sets, 'updated_at = :updated_at'].join(', ')} WHERE workspace_id = :workspace_id AND id = :id RETURNING *`,
    { replacements: { ...changes, updated_at: now, id, workspace_id }, type: QueryTypes.SELECT, transaction: tx },
  );
  return row;
}
