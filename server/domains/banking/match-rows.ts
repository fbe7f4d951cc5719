import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { sameWorkspace } from '../../db/distributed.js';
import { notFound } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { MatchObject } from '../../../shared/contracts/banking.js';
import { ledger, type EntryRow, type EventActor } from '../entries/index.js';
import { reconcileEntries } from './reconcile-entries.js';

type MatchRow = {
  id: string;
  workspace_id: number;
  bank_account_id: string;
  method: 'MANUAL' | 'AUTO';
  created_by: string | null;
  created_at: Date;
  line_ids: (string | number)[];
  entry_ids: (string | number)[];
};

const MATCH_SELECT = `SELECT m.id, m.workspace_id, m.bank_account_id, m.method, m.created_by, m.created_at,
    ARRAY(SELECT l.id FROM bank_lines l WHERE l.match_id = m.id${sameWorkspace('l', 'm')} ORDER BY l.id) AS line_ids,
    ARRAY(SELECT me.entry_id FROM bank_match_entries me WHERE me.match_id = m.id${sameWorkspace('me', 'm')} ORDER BY me.entry_id) AS entry_ids
  FROM bank_matches m`;

const presentMatch = (r: MatchRow): MatchObject => ({
  id: r.id,
  workspaceId: r.workspace_id,
  bankAccountId: r.bank_account_id,
  lineIds: r.line_ids.map(Number),
  entryIds: r.entry_ids.map(Number),
  method: r.method,
  createdBy: r.created_by,
  createdAt: r.created_at.toISOString(),
});

/** The match as the contract shows it; 404 when absent or in a workspace the actor is not a member of. */
export async function loadMatch(actor: Actor | null, id: string, tx?: Transaction): Promise<MatchObject> {
  const [row] = await db().query<MatchRow>(`${MATCH_SELECT} WHERE m.id = :id`, {
    replacements: { id },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  if (!row || (actor && !scope.canSeeWorkspaceObject(actor, row.workspace_id))) throw notFound('Match');
  return presentMatch(row);
}

/**
 * Undoes matches inside the caller's transaction: lines UNMATCHED, match rows gone, entries
 * unreconciled with UNRECONCILED events carrying the matchId. The caller has locked the entries.
 */
export async function dissolveMatches(tx: Transaction, workspaceId: number, matchIds: string[], actor: EventActor): Promise<void> {
  if (matchIds.length === 0) return;
  const entries = await releaseMatches(tx, workspaceId, matchIds);
  await reconcileEntries(
    tx,
    entries.map((e) => ({ entryId: Number(e.entry_id), matchId: e.match_id })),
    actor,
    false,
  );
}

/** Banking's own rows of dissolving one match (its entries locked by the caller): lines UNMATCHED, the match gone. */
export async function releaseMatch(tx: Transaction, workspaceId: number, matchId: string): Promise<void> {
  await releaseMatches(tx, workspaceId, [matchId]);
}

/** Each statement names the workspace: routed to its shard group on Citus (CONTRACT §24), not run on every shard. */
async function releaseMatches(tx: Transaction, workspaceId: number, matchIds: string[]): Promise<{ entry_id: string; match_id: string }[]> {
  return db().query<{ entry_id: string; match_id: string }>(
    `WITH l AS (
       UPDATE bank_lines SET status = 'UNMATCHED', match_id = NULL WHERE workspace_id = $2::int AND match_id = ANY($1::uuid[])
     ), me AS (
       DELETE FROM bank_match_entries WHERE workspace_id = $2::int AND match_id = ANY($1::uuid[]) RETURNING entry_id, match_id
     ), m AS (
       DELETE FROM bank_matches WHERE workspace_id = $2::int AND id = ANY($1::uuid[])
     )
     SELECT entry_id, match_id FROM me`,
    { bind: [matchIds, workspaceId], type: QueryTypes.SELECT, transaction: tx },
  );
}

/**
 * Locks entries through the ledger core, in id order (the one lock order of banking: entries, then matches, then
 * lines); of workspace `workspaceId` only when given.
 */
export async function lockEntries(tx: Transaction, ids: number[], workspaceId?: number): Promise<EntryRow[]> {
  return ledger.lockMany(tx, ids, workspaceId);
}
