import { lockById } from '../../../db/distributed.js';
import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';
import { iso } from '../../../lib/dates.js';
import { notFound } from '../../../lib/errors.js';
import { scope, type Actor } from '../../../lib/scope.js';
import type { ConnectionObject, SyncMode } from '../../../../shared/contracts/accounting.js';

export type ConnectionRow = {
  id: string;
  workspace_id: number;
  provider_type: string;
  name: string;
  credentials_ciphertext: Buffer;
  credentials_iv: Buffer;
  credentials_tag: Buffer;
  credentials_kid: string;
  webhook_secret_ciphertext: Buffer | null;
  webhook_secret_iv: Buffer | null;
  webhook_secret_tag: Buffer | null;
  webhook_secret_kid: string | null;
  config: Record<string, unknown>;
  sync_mode: SyncMode;
  require_review: boolean;
  require_completeness_for_sync: boolean;
  sync_schedule_cron: string | null;
  project_ids: number[];
  is_active: boolean;
  last_pulled_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

/**
 * The connection as the contract shows it (CONTRACT §7). An explicit allow-list: the
 * encrypted credentials and webhook secret never leave this module, only `hasWebhookSecret`.
 */
export function presentConnection(r: ConnectionRow): ConnectionObject {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    providerType: r.provider_type,
    name: r.name,
    config: r.config,
    hasWebhookSecret: r.webhook_secret_ciphertext !== null,
    syncMode: r.sync_mode,
    requireReview: r.require_review,
    requireCompletenessForSync: r.require_completeness_for_sync,
    syncScheduleCron: r.sync_schedule_cron,
    projectIds: r.project_ids,
    isActive: r.is_active,
    lastPulledAt: iso(r.last_pulled_at),
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

/**
 * A connection the actor may see (a member of its workspace), or 404. With `forUpdate` the row
 * stays locked until the transaction ends. `actor` null: internal callers (webhooks, jobs).
 */
export async function loadConnection(actor: Actor | null, id: string, tx?: Transaction, forUpdate = false): Promise<ConnectionRow> {
  const rows = await db().query<ConnectionRow>(
    `SELECT * FROM accounting_connections WHERE id = :id${forUpdate ? await lockById('accounting_connections', id, tx, 'FOR NO KEY UPDATE') : ''}`,
    {
      replacements: { id },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  const row = rows[0];
  if (!row || (actor && !scope.canSeeWorkspaceObject(actor, row.workspace_id))) throw notFound('Accounting connection');
  return row;
}

export const lockConnection = (actor: Actor | null, id: string, tx: Transaction) => loadConnection(actor, id, tx, true);

/** Does the connection route entries of this project? (`projectIds` empty = every project of the workspace) */
export const coversProject = (c: Pick<ConnectionRow, 'project_ids'>, projectId: number): boolean =>
  c.project_ids.length === 0 || c.project_ids.includes(projectId);

export async function listConnectionRows(workspaceId: number, tx?: Transaction): Promise<ConnectionRow[]> {
  return db().query<ConnectionRow>('SELECT * FROM accounting_connections WHERE workspace_id = :ws ORDER BY created_at, id', {
    replacements: { ws: workspaceId },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
}
