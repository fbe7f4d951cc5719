import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import type { IngestItem, PartyRef } from '../../../shared/contracts/integrations.js';
import { ledger } from '../entries/index.js';
import type { IngestCaller } from './ingest-auth.js';

/** What the per-item rules need, read once per batch inside its transaction. */
export type RuleContext = {
  workspaceProjects: Set<number>;
  workspaceParties: Set<number>;
  /** entryDate → the name of the closed period it lies in (the dates of the batch that lie in one) */
  closedPeriods: Map<string, string>;
};

const partyIdOf = (ref: PartyRef | undefined) => (ref && 'id' in ref ? ref.id : undefined);

/**
 * Loads projects, parties by id and the closed periods of the batch's dates (the ledger core's check, which takes
 * the periods lock shared, so no period can close while the batch is being written).
 */
export async function loadRuleContext(tx: Transaction, workspaceId: number, items: IngestItem[]): Promise<RuleContext> {
  const closedPeriods = await ledger.closedPeriodsAt(
    tx,
    workspaceId,
    items.map((i) => i.entryDate),
  );
  const projectIds = [...new Set(items.map((i) => i.projectId))];
  const partyIds = [...new Set(items.flatMap((i) => [partyIdOf(i.fromParty), partyIdOf(i.toParty)]).filter((id) => id !== undefined))];
  const projects = await idsIn(tx, 'projects', workspaceId, projectIds);
  const parties = await idsIn(tx, 'parties', workspaceId, partyIds);
  return { workspaceProjects: projects, workspaceParties: parties, closedPeriods };
}

async function idsIn(tx: Transaction, table: 'projects' | 'parties', workspaceId: number, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db().query<{ id: number }>(`SELECT id FROM ${table} WHERE workspace_id = $1 AND id = ANY($2::int[])`, {
    bind: [workspaceId, ids],
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return new Set(rows.map((r) => r.id));
}

/** Why this item cannot be written (an ERROR result), or undefined when it can. */
export function ruleError(item: IngestItem, caller: IngestCaller, ctx: RuleContext): string | undefined {
  if (!ctx.workspaceProjects.has(item.projectId)) return `Project ${item.projectId} not found`;
  if (caller.projectIds.length > 0 && !caller.projectIds.includes(item.projectId)) {
    return `Project ${item.projectId} is outside this integration's project scope`;
  }
  const refusal = ledger.writeRefusal(null, { kind: 'create', date: item.entryDate }, (day) => ctx.closedPeriods.get(day));
  if (refusal !== null) return `entryDate ${refusal}`;
  for (const side of ['fromParty', 'toParty'] as const) {
    const id = partyIdOf(item[side]);
    if (id !== undefined && !ctx.workspaceParties.has(id)) return `${side} ${id} is not a party of this workspace`;
  }
  return undefined;
}
