import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../db/database.js';
import { EntrySource, Workspace, WorkspaceMember } from '../../db/models/index.js';
import { conflict, notFound } from '../../lib/errors.js';
import type { Actor } from '../../lib/scope.js';
import type { CreateWorkspaceInput, UpdateWorkspaceInput, WorkspaceObject } from '../../../shared/contracts/workspaces.js';
import { presentWorkspace } from './presenters.js';

/** A workspace named in a path: the caller must be a full member, else 404. */
export async function memberWorkspace(actor: Actor, id: number, tx: Transaction, opts: { lock?: boolean } = {}): Promise<Workspace> {
  const ws = actor.workspaceIds.has(id)
    ? await Workspace.findByPk(id, { transaction: tx, lock: opts.lock ? tx.LOCK.UPDATE : undefined })
    : null;
  if (!ws) throw notFound('Workspace');
  return ws;
}

export async function listWorkspaces(actor: Actor): Promise<WorkspaceObject[]> {
  const rows = await Workspace.findAll({ where: { id: [...actor.workspaceIds] }, order: [['id', 'ASC']] });
  return rows.map(presentWorkspace);
}

/** The creator becomes a member; the built-in MANUAL entry source is created with it. */
export async function createWorkspace(actor: Actor, input: CreateWorkspaceInput): Promise<WorkspaceObject> {
  return transaction(async (tx) => {
    const ws = await Workspace.create(
      { name: input.name, baseCurrency: input.baseCurrency ?? 'USD', createdBy: actor.userId },
      { transaction: tx },
    );
    await WorkspaceMember.create({ workspaceId: ws.id, userId: actor.userId }, { transaction: tx });
    await EntrySource.create({ workspaceId: ws.id, kind: 'MANUAL', name: 'Manual' }, { transaction: tx });
    return presentWorkspace(ws);
  });
}

export async function getWorkspace(actor: Actor, input: { id: number }): Promise<WorkspaceObject> {
  return transaction(async (tx) => presentWorkspace(await memberWorkspace(actor, input.id, tx)));
}

export async function updateWorkspace(actor: Actor, input: UpdateWorkspaceInput): Promise<WorkspaceObject> {
  return transaction(async (tx) => {
    const ws = await memberWorkspace(actor, input.id, tx, { lock: true });
    if (input.name !== undefined) ws.name = input.name;
    if (input.baseCurrency !== undefined && input.baseCurrency !== ws.baseCurrency.trim()) {
      await assertNothingValued(ws.id, tx);
      ws.baseCurrency = input.baseCurrency;
    }
    await ws.save({ transaction: tx });
    return presentWorkspace(ws);
  });
}

/**
 * CONTRACT §4: the base currency changes only while nothing is stated in it — no entry (their base amounts and
 * every closed period's totals), no FX rate (quoted against it) and no bank account — else 409. The caller holds
 * the workspace row FOR UPDATE, which the foreign keys of a concurrent insert into these tables wait for.
 */
async function assertNothingValued(workspaceId: number, tx: Transaction): Promise<void> {
  const [row] = await db().query<{ what: string | null }>(
    `SELECT CASE WHEN EXISTS (SELECT 1 FROM entries WHERE workspace_id = $1) THEN 'entries'
                 WHEN EXISTS (SELECT 1 FROM fx_rates WHERE workspace_id = $1) THEN 'FX rates'
                 WHEN EXISTS (SELECT 1 FROM bank_accounts WHERE workspace_id = $1) THEN 'bank accounts' END AS what`,
    { bind: [workspaceId], type: QueryTypes.SELECT, transaction: tx },
  );
  if (row?.what) throw conflict(`The base currency cannot change: the workspace already has ${row.what} stated in it`);
}
