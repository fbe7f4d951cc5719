import { lockById } from '../../db/distributed.js';
import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { notFound } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { RuleAction, RuleCondition, RuleMatch, RuleObject, RuleTrigger } from '../../../shared/contracts/rules.js';
import type { RuleDefinition } from './engine.js';

export type RuleRow = {
  id: string;
  workspace_id: number;
  name: string;
  priority: number;
  is_active: boolean;
  match: RuleMatch;
  conditions: RuleCondition[];
  actions: RuleAction[];
  stop_processing: boolean;
  triggers: RuleTrigger[];
  created_at: Date;
  updated_at: Date;
};

/** GET /rules order (CONTRACT §16): priority ascending, then createdAt (id breaks exact ties). */
export const RULE_ORDER = 'priority ASC, created_at ASC, id ASC';

export const presentRule = (r: RuleRow): RuleObject => ({
  id: r.id,
  workspaceId: r.workspace_id,
  name: r.name,
  priority: r.priority,
  isActive: r.is_active,
  match: r.match,
  conditions: r.conditions,
  actions: r.actions,
  stopProcessing: r.stop_processing,
  triggers: r.triggers,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

export const definitionOf = (r: RuleRow): RuleDefinition => ({
  id: r.id,
  name: r.name,
  match: r.match,
  conditions: r.conditions,
  actions: r.actions,
  stopProcessing: r.stop_processing,
  triggers: r.triggers,
});

/** A rule of a workspace the actor is a member of, or 404 (never revealing that it exists). */
export async function loadRule(actor: Actor, id: string, tx?: Transaction, forUpdate = false): Promise<RuleRow> {
  const [row] = await db().query<RuleRow>(
    `SELECT * FROM rules WHERE id = :id${forUpdate ? await lockById('rules', id, tx, 'FOR UPDATE') : ''}`,
    {
      replacements: { id },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  if (!row || !scope.canSeeWorkspaceObject(actor, row.workspace_id)) throw notFound('Rule');
  return row;
}

export async function listRuleRows(workspaceId: number, opts: { activeOnly?: boolean; tx?: Transaction } = {}): Promise<RuleRow[]> {
  return db().query<RuleRow>(
    `SELECT * FROM rules WHERE workspace_id = :ws${opts.activeOnly ? ' AND is_active' : ''} ORDER BY ${RULE_ORDER}`,
    {
      replacements: { ws: workspaceId },
      type: QueryTypes.SELECT,
      transaction: opts.tx,
    },
  );
}
