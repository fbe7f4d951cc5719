import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../../db/database.js';
import { clock } from '../../../lib/clock.js';
import { badRequest, conflict, notFound } from '../../../lib/errors.js';
import { scope, type Actor } from '../../../lib/scope.js';
import type { BatchPartyMappingsInput, CreatePartyMappingInput, PartyMappingObject } from '../../../../shared/contracts/accounting.js';
import { loadConnection } from '../connections/connection-rows.js';
import { intArrayLiteral } from '../pg-arrays.js';

type Row = {
  id: string;
  workspace_id: number;
  connection_id: string;
  party_id: number;
  external_id: string;
  external_type: string;
  external_name: string;
  created_at: Date;
};

const present = (r: Row): PartyMappingObject => ({
  id: r.id,
  connectionId: r.connection_id,
  partyId: r.party_id,
  externalId: r.external_id,
  externalType: r.external_type,
  externalName: r.external_name,
  createdAt: r.created_at.toISOString(),
});

/** Every party must belong to the connection's workspace (400). */
async function assertParties(tx: Transaction, workspaceId: number, partyIds: number[]): Promise<void> {
  const unique = [...new Set(partyIds)];
  const found = await db().query<{ id: number }>('SELECT id FROM parties WHERE workspace_id = :ws AND id = ANY (CAST(:ids AS int[]))', {
    replacements: { ws: workspaceId, ids: intArrayLiteral(unique) },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  const known = new Set(found.map((p) => p.id));
  const foreign = unique.filter((id) => !known.has(id));
  if (foreign.length) throw badRequest(`partyId is not a party of the connection's workspace: ${foreign.join(', ')}`);
}

export async function listPartyMappings(actor: Actor, connectionId: string): Promise<PartyMappingObject[]> {
  const connection = await loadConnection(actor, connectionId);
  const rows = await db().query<Row>('SELECT * FROM party_mappings WHERE connection_id = :id ORDER BY created_at, id', {
    replacements: { id: connection.id },
    type: QueryTypes.SELECT,
  });
  return rows.map(present);
}

/** One mapping per (connection, party): a second one is a 409. */
export async function createPartyMapping(actor: Actor, input: CreatePartyMappingInput): Promise<PartyMappingObject> {
  return transaction(async (tx) => {
    const connection = await loadConnection(actor, input.connectionId, tx);
    await assertParties(tx, connection.workspace_id, [input.partyId]);
    const now = clock.now();
    const [row] = await db().query<Row>(
      `INSERT INTO party_mappings (workspace_id, connection_id, party_id, external_id, external_type, external_name, created_at, updated_at)
       VALUES (:ws, :connectionId, :partyId, :externalId, :externalType, :externalName, :now, :now)
       ON CONFLICT ON CONSTRAINT party_mappings_connection_party_key DO NOTHING
       RETURNING *`,
      {
        replacements: { ws: connection.workspace_id, ...input, now },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    if (!row) throw conflict('The party already has a mapping for this connection');
    return present(row);
  });
}

/** Upserts by (connection, party) in one statement; a party named twice in one batch is a 400. */
export async function batchUpsertPartyMappings(
  actor: Actor,
  input: BatchPartyMappingsInput,
): Promise<{ created: number; updated: number }> {
  const partyIds = input.mappings.map((m) => m.partyId);
  const repeated = partyIds.filter((id, i) => partyIds.indexOf(id) !== i);
  if (repeated.length) throw badRequest(`partyId appears more than once in the batch: ${[...new Set(repeated)].join(', ')}`);
  return transaction(async (tx) => {
    const connection = await loadConnection(actor, input.connectionId, tx);
    await assertParties(tx, connection.workspace_id, partyIds);
    const rows = await db().query<{ inserted: boolean }>(
      `INSERT INTO party_mappings (workspace_id, connection_id, party_id, external_id, external_type, external_name, created_at, updated_at)
       SELECT :ws, :connectionId, m.party_id, m.external_id, m.external_type, m.external_name, :now, :now
         FROM jsonb_to_recordset(CAST(:mappings AS jsonb)) AS m(party_id int, external_id text, external_type text, external_name text)
       ON CONFLICT ON CONSTRAINT party_mappings_connection_party_key DO UPDATE
         SET external_id = EXCLUDED.external_id, external_type = EXCLUDED.external_type,
             external_name = EXCLUDED.external_name, updated_at = EXCLUDED.updated_at
       RETURNING (xmax = 0) AS inserted`,
      {
        replacements: {
          ws: connection.workspace_id,
          connectionId: connection.id,
          now: clock.now(),
          mappings: JSON.stringify(
            input.mappings.map((m) => ({
              party_id: m.partyId,
              external_id: m.externalId,
              external_type: m.externalType,
              external_name: m.externalName,
            })),
          ),
        },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    const created = rows.filter((r) => r.inserted).length;
    return { created, updated: rows.length - created };
  });
}

export async function deletePartyMapping(actor: Actor, id: string): Promise<{ success: true }> {
  const [row] = await db().query<Row>('DELETE FROM party_mappings WHERE id = :id AND workspace_id IN (:workspaces) RETURNING *', {
    replacements: { id, workspaces: [...actor.workspaceIds, 0] },
    type: QueryTypes.SELECT,
  });
  if (!row || !scope.canSeeWorkspaceObject(actor, row.workspace_id)) throw notFound('Party mapping');
  return { success: true };
}
