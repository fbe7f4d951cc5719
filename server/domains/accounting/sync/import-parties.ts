import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../../db/database.js';
import { clock } from '../../../lib/clock.js';
import type { ImportResult } from '../../../../shared/contracts/sync.js';
import type { ExternalParty } from '../providers/provider.js';
import { activeProvider, providerCall } from './pull.js';

/**
 * pull-parties (CONTRACT §9): the provider's parties (QuickBooks: Vendors and Customers)
 * upserted by (externalType, externalId) through this connection's party mappings. A mapped one
 * takes the external name (and country, when given): `updated` counts those that changed. A new
 * one is `imported`: linked to the workspace's party of the same name (case-insensitive) that has
 * no mapping on this connection yet (taking the external name and country), or created as an
 * ORGANIZATION, and given its mapping.
 */
export async function importParties(connectionId: string): Promise<ImportResult> {
  const { connection, provider } = await activeProvider(connectionId);
  const parties = await providerCall('Listing external parties', () => provider.listParties());
  return transaction(async (tx) => {
    const result: ImportResult = { imported: 0, updated: 0 };
    for (const party of parties) {
      const outcome = await upsertParty(tx, { id: connection.id, workspaceId: connection.workspace_id }, party);
      if (outcome) result[outcome]++;
    }
    return result;
  });
}

type Mapped = { mapping_id: string; party_id: number; external_name: string; name: string; country: string | null };

async function upsertParty(
  tx: Transaction,
  c: { id: string; workspaceId: number },
  p: ExternalParty,
): Promise<'imported' | 'updated' | null> {
  const now = clock.now();
  const country = p.country ?? null;
  const [mapped] = await db().query<Mapped>(
    `SELECT m.id AS mapping_id, m.party_id, m.external_name, p.name, p.country
       FROM party_mappings m JOIN parties p ON p.id = m.party_id AND p.workspace_id = m.workspace_id
      WHERE m.workspace_id = :ws AND m.connection_id = :connectionId AND m.external_type = :externalType AND m.external_id = :externalId
      LIMIT 1 FOR UPDATE OF m, p`,
    {
      replacements: { ws: c.workspaceId, connectionId: c.id, externalType: p.externalType, externalId: p.externalId },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  if (mapped) {
    const nextCountry = country ?? mapped.country?.trim() ?? null;
    if (mapped.name === p.name && mapped.external_name === p.name && (mapped.country?.trim() ?? null) === nextCountry) return null;
    await db().query('UPDATE parties SET name = :name, country = :country, updated_at = :now WHERE id = :id', {
      replacements: { id: mapped.party_id, name: p.name, country: nextCountry, now },
      transaction: tx,
    });
    await db().query('UPDATE party_mappings SET external_name = :name, updated_at = :now WHERE id = :id', {
      replacements: { id: mapped.mapping_id, name: p.name, now },
      transaction: tx,
    });
    return 'updated';
  }
  const [sameName] = await db().query<{ id: number }>(
    `SELECT p.id FROM parties p
      WHERE p.workspace_id = :ws AND lower(p.name) = lower(:name)
        AND NOT EXISTS (SELECT 1 FROM party_mappings m WHERE m.workspace_id = p.workspace_id AND m.connection_id = :connectionId AND m.party_id = p.id)
      ORDER BY p.id LIMIT 1`,
    { replacements: { ws: c.workspaceId, name: p.name, connectionId: c.id }, type: QueryTypes.SELECT, transaction: tx },
  );
  const partyId = sameName?.id ?? (await createParty(tx, c.workspaceId, p.name, country, now));
  if (sameName) {
    // a linked party takes the external values, as a mapped one does
    await db().query('UPDATE parties SET name = :name, country = COALESCE(:country, country), updated_at = :now WHERE id = :id', {
      replacements: { id: partyId, name: p.name, country, now },
      transaction: tx,
    });
  }
  await db().query(
    `INSERT INTO party_mappings (workspace_id, connection_id, party_id, external_id, external_type, external_name, created_at, updated_at)
     VALUES (:ws, :connectionId, :partyId, :externalId, :externalType, :name, :now, :now)`,
    {
      replacements: {
        ws: c.workspaceId,
        connectionId: c.id,
        partyId,
        externalId: p.externalId,
        externalType: p.externalType,
        name: p.name,
        now,
      },
      transaction: tx,
    },
  );
  return 'imported';
}

async function createParty(tx: Transaction, workspaceId: number, name: string, country: string | null, now: Date): Promise<number> {
  const [row] = await db().query<{ id: number }>(
    `INSERT INTO parties (workspace_id, name, party_type, country, created_at, updated_at)
     VALUES (:ws, :name, 'ORGANIZATION', :country, :now, :now) RETURNING id`,
    { replacements: { ws: workspaceId, name, country, now }, type: QueryTypes.SELECT, transaction: tx },
  );
  return row.id;
}
