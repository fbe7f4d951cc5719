import { QueryTypes } from 'sequelize';
import { db, transaction } from '../../../db/database.js';
import { clock } from '../../../lib/clock.js';
import { conflict, notFound } from '../../../lib/errors.js';
import { scope, type Actor } from '../../../lib/scope.js';
import type { CreateTaxMappingInput, TaxMappingObject } from '../../../../shared/contracts/accounting.js';
import { loadConnection } from '../connections/connection-rows.js';

type Row = {
  id: string;
  workspace_id: number;
  connection_id: string;
  tax_code: string;
  external_tax_code_id: string;
  external_name: string | null;
  rate_percent: number | null;
  created_at: Date;
};

const COLUMNS =
  'id, workspace_id, connection_id, tax_code, external_tax_code_id, external_name, rate_percent::float8 AS rate_percent, created_at';

const present = (r: Row): TaxMappingObject => ({
  id: r.id,
  connectionId: r.connection_id,
  taxCode: r.tax_code,
  externalTaxCodeId: r.external_tax_code_id,
  externalName: r.external_name,
  ratePercent: r.rate_percent,
  createdAt: r.created_at.toISOString(),
});

export async function listTaxMappings(actor: Actor, connectionId: string): Promise<TaxMappingObject[]> {
  const connection = await loadConnection(actor, connectionId);
  const rows = await db().query<Row>(`SELECT ${COLUMNS} FROM tax_mappings WHERE connection_id = :id ORDER BY tax_code, id`, {
    replacements: { id: connection.id },
    type: QueryTypes.SELECT,
  });
  return rows.map(present);
}

/** One mapping per (connection, taxCode): a second one is a 409. */
export async function createTaxMapping(actor: Actor, input: CreateTaxMappingInput): Promise<TaxMappingObject> {
  return transaction(async (tx) => {
    const connection = await loadConnection(actor, input.connectionId, tx);
    const now = clock.now();
    const [row] = await db().query<Row>(
      `INSERT INTO tax_mappings (workspace_id, connection_id, tax_code, external_tax_code_id, external_name, rate_percent, created_at, updated_at)
       VALUES (:ws, :connectionId, :taxCode, :externalTaxCodeId, :externalName, :ratePercent, :now, :now)
       ON CONFLICT ON CONSTRAINT tax_mappings_connection_code_key DO NOTHING
       RETURNING ${COLUMNS}`,
      {
        replacements: {
          ws: connection.workspace_id,
          connectionId: connection.id,
          taxCode: input.taxCode,
          externalTaxCodeId: input.externalTaxCodeId,
          externalName: input.externalName ?? null,
          ratePercent: input.ratePercent ?? null,
          now,
        },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    if (!row) throw conflict(`Tax code ${input.taxCode} already has a mapping for this connection`);
    return present(row);
  });
}

export async function deleteTaxMapping(actor: Actor, id: string): Promise<{ success: true }> {
  const [row] = await db().query<Row>(`DELETE FROM tax_mappings WHERE id = :id AND workspace_id IN (:workspaces) RETURNING ${COLUMNS}`, {
    replacements: { id, workspaces: [...actor.workspaceIds, 0] },
    type: QueryTypes.SELECT,
  });
  if (!row || !scope.canSeeWorkspaceObject(actor, row.workspace_id)) throw notFound('Tax mapping');
  return { success: true };
}
