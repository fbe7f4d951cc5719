import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import { badRequest, conflict, notFound } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { CreateMatchInput, MatchObject } from '../../../shared/contracts/banking.js';
import { byUser, type EntryRow, type EventActor } from '../entries/index.js';
import { assertActive, loadAccount, type AccountRow } from './account-rows.js';
import { dissolveMatches, loadMatch, lockEntries } from './match-rows.js';
import { reconcileEntries } from './reconcile-entries.js';

export const LIVE_STATUSES = ['PENDING', 'UNDER_REVIEW', 'COMPLETED'];

const LINE_FOR_MATCH = 'id, workspace_id, bank_account_id, amount_cents, status';
type LineForMatch = { id: string; workspace_id: number; bank_account_id: string; amount_cents: number; status: string };
type EntryForMatch = {
  id: string;
  workspace_id: number;
  entry_type: 'INCOME' | 'EXPENSE';
  entry_status: string;
  base_currency: string;
  amount_cents: number;
  matched: boolean;
};

const signed = (e: EntryForMatch) => (e.entry_type === 'INCOME' ? e.amount_cents : -e.amount_cents);

/**
 * The entries of a match body, locked in id order by the ledger core (of the account's workspace: any other id is
 * not locked, and is a 400, CONTRACT §2), and whether each is in a match already (banking's own table).
 */
async function lockedEntries(tx: Transaction, account: AccountRow, ids: number[]): Promise<EntryForMatch[]> {
  const rows = await lockEntries(tx, ids, account.workspace_id);
  const found = new Set(rows.map((r) => Number(r.id)));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length) throw badRequest(`Entries not found in the account's workspace: ${missing.join(', ')}`);
  const matched = await db().query<{ entry_id: string }>(
    'SELECT entry_id FROM bank_match_entries WHERE workspace_id = $1 AND entry_id = ANY($2::bigint[])',
    { bind: [account.workspace_id, ids], type: QueryTypes.SELECT, transaction: tx },
  );
  const inMatch = new Set(matched.map((m) => Number(m.entry_id)));
  return rows.map((r) => ({
    id: String(r.id),
    workspace_id: r.workspace_id,
    entry_type: r.entry_type as EntryForMatch['entry_type'],
    entry_status: r.entry_status,
    base_currency: r.base_currency,
    amount_cents: Number(r.amount_cents),
    matched: inMatch.has(Number(r.id)),
  }));
}

/** Checks the entries are candidates (CONTRACT §14, without the date window) and the signed sums agree. */
function assertMatchable(account: AccountRow, lines: LineForMatch[], entries: EntryForMatch[]): void {
  for (const e of entries) {
    if (!LIVE_STATUSES.includes(e.entry_status)) throw conflict(`Entry ${e.id} is ${e.entry_status}`);
    if (e.base_currency.trim() !== account.currency.trim())
      throw conflict(`Entry ${e.id} is in ${e.base_currency}, the account in ${account.currency}`);
    if (e.matched) throw conflict(`Entry ${e.id} is already in a match`);
  }
  const allIn = lines.every((l) => l.amount_cents > 0);
  const allOut = lines.every((l) => l.amount_cents < 0);
  const wrongType = entries.find((e) => (allIn && e.entry_type !== 'INCOME') || (allOut && e.entry_type !== 'EXPENSE'));
  if (wrongType)
    throw conflict(
      `Entry ${wrongType.id} is ${wrongType.entry_type}; money ${allIn ? 'in' : 'out'} matches ${allIn ? 'INCOME' : 'EXPENSE'} entries`,
    );
  const lineSum = lines.reduce((s, l) => s + l.amount_cents, 0);
  const entrySum = entries.reduce((s, e) => s + signed(e), 0);
  if (lineSum !== entrySum) throw conflict(`The lines add up to ${lineSum}, the entries (INCOME +, EXPENSE −) to ${entrySum}`);
}

/** Writes one match of lines and entries that were checked and locked; entries become reconciled. */
export async function writeMatch(
  tx: Transaction,
  account: AccountRow,
  lineIds: number[],
  entryIds: number[],
  method: 'MANUAL' | 'AUTO',
  actor: EventActor,
): Promise<string> {
  const [{ id }] = await db().query<{ id: string }>(
    `INSERT INTO bank_matches (workspace_id, bank_account_id, method, created_by, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    {
      bind: [account.workspace_id, account.id, method, actor.actorType === 'USER' ? actor.actorId : null, clock.now().toISOString()],
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  await db().query(
    `WITH me AS (INSERT INTO bank_match_entries (match_id, entry_id, workspace_id) SELECT $1, unnest($2::bigint[]), $3)
     UPDATE bank_lines SET status = 'MATCHED', match_id = $1 WHERE workspace_id = $3 AND id = ANY($4::bigint[])`,
    { bind: [id, entryIds, account.workspace_id, lineIds], transaction: tx },
  );
  // after the match's rows: the core reconciles the entries and the books settle them from the match (CONTRACT §23)
  await reconcileEntries(
    tx,
    entryIds.map((entryId) => ({ entryId, matchId: id })),
    actor,
    true,
  );
  return id;
}

/**
 * Lines of a body, locked. The lines are the objects the match acts on: an id that does not exist or
 * that the actor cannot see is a 404 (CONTRACT §2, as on /bank-lines/{id}); lines of several accounts, 400.
 */
async function lockedLines(tx: Transaction, actor: Actor, ids: number[], workspaceId: number): Promise<LineForMatch[]> {
  // locked in the account's workspace (Citus locks only in one shard group); any other line is read to be refused as before
  const lines = await db().query<LineForMatch>(
    `SELECT ${LINE_FOR_MATCH} FROM bank_lines WHERE id = ANY($1::bigint[]) AND workspace_id = $2 ORDER BY id FOR UPDATE`,
    { bind: [ids, workspaceId], type: QueryTypes.SELECT, transaction: tx },
  );
  if (lines.length < ids.length) {
    const locked = new Set(lines.map((l) => Number(l.id)));
    const others = await db().query<LineForMatch>(`SELECT ${LINE_FOR_MATCH} FROM bank_lines WHERE id = ANY($1::bigint[])`, {
      bind: [ids.filter((id) => !locked.has(id))],
      type: QueryTypes.SELECT,
      transaction: tx,
    });
    lines.push(...others);
    lines.sort((a, b) => Number(a.id) - Number(b.id));
  }
  const visible = lines.filter((l) => scope.canSeeWorkspaceObject(actor, l.workspace_id));
  if (visible.length !== ids.length) {
    const seen = new Set(visible.map((l) => Number(l.id)));
    throw notFound(`Bank lines ${ids.filter((id) => !seen.has(id)).join(', ')}`);
  }
  if (new Set(lines.map((l) => l.bank_account_id)).size > 1) throw badRequest('The lines belong to more than one bank account');
  return lines;
}

/** POST /reconciliation/matches: a manual 1:1, 1:N, N:1 (or N:M) match, in one transaction. */
export async function createMatch(actor: Actor, input: CreateMatchInput): Promise<MatchObject> {
  return transaction(async (tx) => {
    const [first] = await db().query<{ bank_account_id: string; workspace_id: number }>(
      'SELECT bank_account_id, workspace_id FROM bank_lines WHERE id = $1',
      { bind: [input.lineIds[0]], type: QueryTypes.SELECT, transaction: tx },
    );
    if (!first || !scope.canSeeWorkspaceObject(actor, first.workspace_id)) throw notFound(`Bank lines ${input.lineIds[0]}`);
    const account = await loadAccount(actor, first.bank_account_id, tx, 'share');
    assertActive(account);
    const entries = await lockedEntries(tx, account, input.entryIds); // lock order: entries, then lines
    const lines = await lockedLines(tx, actor, input.lineIds, account.workspace_id);
    if (lines.some((l) => l.bank_account_id !== account.id)) throw badRequest('The lines belong to more than one bank account');
    const taken = lines.find((l) => l.status !== 'UNMATCHED');
    if (taken) throw conflict(`Bank line ${taken.id} is ${taken.status}`);
    assertMatchable(account, lines, entries);
    const id = await writeMatch(tx, account, input.lineIds, input.entryIds, 'MANUAL', byUser(actor));
    return loadMatch(null, id, tx);
  });
}

export const getMatch = (actor: Actor, id: string): Promise<MatchObject> => loadMatch(actor, id);

/** DELETE /reconciliation/matches/{id}: lines UNMATCHED, entries unreconciled (UNRECONCILED events). */
export async function deleteMatch(actor: Actor, id: string): Promise<{ success: true }> {
  return transaction(async (tx) => {
    const match = await loadMatch(actor, id, tx);
    await lockEntries(tx, match.entryIds);
    const [still] = await db().query('SELECT id FROM bank_matches WHERE id = $1 AND workspace_id = $2 FOR UPDATE', {
      bind: [id, match.workspaceId],
      type: QueryTypes.SELECT,
      transaction: tx,
    });
    if (!still) throw notFound('Match');
    await dissolveMatches(tx, match.workspaceId, [id], byUser(actor));
    return { success: true as const };
  });
}

/**
 * The match holding the entry, with the ids of its entries, or null. The entry is locked by the core, and a match is
 * written only with its entries locked, so the answer holds until commit.
 */
export async function matchOf(tx: Transaction, entry: EntryRow): Promise<{ matchId: string; entryIds: number[] } | null> {
  const [held] = await db().query<{ match_id: string; entry_ids: string[] }>(
    // both name the workspace: Citus runs the correlated subquery only within one shard group (CONTRACT §24)
    `SELECT me.match_id,
            ARRAY(SELECT o.entry_id FROM bank_match_entries o WHERE o.workspace_id = $2 AND o.match_id = me.match_id ORDER BY o.entry_id) AS entry_ids
       FROM bank_match_entries me WHERE me.workspace_id = $2 AND me.entry_id = $1`,
    { bind: [entry.id, entry.workspace_id], type: QueryTypes.SELECT, transaction: tx },
  );
  return held ? { matchId: held.match_id, entryIds: held.entry_ids.map(Number) } : null;
}
