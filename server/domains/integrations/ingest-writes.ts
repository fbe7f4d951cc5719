import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';

/** externalId → id of the entries this integration already holds among `externalIds`. */
export async function existingEntryIds(tx: Transaction, integrationId: string, externalIds: string[]): Promise<Map<string, number>> {
  if (externalIds.length === 0) return new Map();
  const rows = await db().query<{ id: number; external_id: string }>(
    `SELECT id, external_id FROM entries WHERE integration_id = $1 AND external_id = ANY($2::text[])`,
    { bind: [integrationId, externalIds], type: QueryTypes.SELECT, transaction: tx },
  );
  return new Map(rows.map((r) => [r.external_id, r.id]));
}
