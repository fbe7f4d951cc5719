import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import { conflict } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import { RULES_PER_WORKSPACE_MAX, type CreateRuleInput, type RuleObject, type UpdateRuleInput } from '../../../shared/contracts/rules.js';
import { forgetAtCommit } from './rule-cache.js';
import { listRuleRows, loadRule, presentRule, type RuleRow } from './rule-rows.js';
import { validateRule } from './rule-validation.js';

/**
 * Rule writes of a workspace run one at a time (transaction-scoped advisory lock): two creates
 * racing for the 200th place cannot both count 199.
 */
async function lockWorkspaceRules(tx: Transaction, workspaceId: number): Promise<void> {
  await db().query(`SELECT pg_advisory_xact_lock(hashtext('rules'), :ws)`, { replacements: { ws: workspaceId }, transaction: tx });
}

export async function listRules(actor: Actor, input: { workspaceId: number }): Promise<RuleObject[]> {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  return (await listRuleRows(input.workspaceId)).map(presentRule);
}

export async function getRule(actor: Actor, input: { id: string }): Promise<RuleObject> {
  return presentRule(await loadRule(actor, input.id));
}

export async function createRule(actor: Actor, input: CreateRuleInput): Promise<RuleObject> {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  return transaction(async (tx) => {
    await lockWorkspaceRules(tx, input.workspaceId);
    const [{ count }] = await db().query<{ count: number }>('SELECT count(*)::int AS count FROM rules WHERE workspace_id = :ws', {
      replacements: { ws: input.workspaceId },
      type: QueryTypes.SELECT,
      transaction: tx,
    });
    if (count >= RULES_PER_WORKSPACE_MAX) throw conflict(`A workspace holds at most ${RULES_PER_WORKSPACE_MAX} rules`);
    await validateRule(tx, input.workspaceId, input);
    const [row] = await db().query<RuleRow>(
      `INSERT INTO rules (workspace_id, name, priority, is_active, match, conditions, actions, stop_processing, triggers, created_at, updated_at)
       VALUES (:ws, :name, :priority, :isActive, :match, CAST(:conditions AS jsonb), CAST(:actions AS jsonb), :stop,
               CAST(:triggers AS text[]), :now, :now)
       RETURNING *`,
      {
        replacements: {
          ws: input.workspaceId,
          name: input.name,
          priority: input.priority,
          isActive: input.isActive,
          match: input.match,
          conditions: JSON.stringify(input.conditions),
          actions: JSON.stringify(input.actions),
          stop: input.stopProcessing,
          triggers: `{${input.triggers.join(',')}}`,
          now: clock.now(),
        },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    forgetAtCommit(tx, input.workspaceId);
    return presentRule(row);
  });
}

export async function updateRule(actor: Actor, input: UpdateRuleInput): Promise<RuleObject> {
  return transaction(async (tx) => {
    const current = await loadRule(actor, input.id, tx);
    await lockWorkspaceRules(tx, current.workspace_id);
    const row = await loadRule(actor, input.id, tx, true);
    const next = {
      name: input.name ?? row.name,
      priority: input.priority ?? row.priority,
      isActive: input.isActive ?? row.is_active,
      match: input.match ?? row.match,
      conditions: input.conditions ?? row.conditions,
      actions: input.actions ?? row.actions,
      stopProcessing: input.stopProcessing ?? row.stop_processing,
      triggers: input.triggers ?? row.triggers,
    };
    await validateRule(tx, row.workspace_id, next);
    const [updated] = await db().query<RuleRow>(
      `UPDATE rules SET name = :name, priority = :priority, is_active = :isActive, match = :match,
              conditions = CAST(:conditions AS jsonb), actions = CAST(:actions AS jsonb), stop_processing = :stop,
              triggers = CAST(:triggers AS text[]), updated_at = :now
        WHERE id = :id RETURNING *`,
      {
        replacements: {
          id: row.id,
          ...next,
          conditions: JSON.stringify(next.conditions),
          actions: JSON.stringify(next.actions),
          stop: next.stopProcessing,
          triggers: `{${next.triggers.join(',')}}`,
          now: clock.now(),
        },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    forgetAtCommit(tx, row.workspace_id);
    return presentRule(updated);
  });
}

export async function deleteRule(actor: Actor, input: { id: string }): Promise<{ success: true }> {
  await transaction(async (tx) => {
    const row = await loadRule(actor, input.id, tx, true);
    await db().query('DELETE FROM rules WHERE id = :id', { replacements: { id: row.id }, transaction: tx });
    forgetAtCommit(tx, row.workspace_id);
  });
  return { success: true };
}
