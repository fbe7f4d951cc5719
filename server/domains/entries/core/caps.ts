import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';
import { conflict } from '../../../lib/errors.js';
import type { LinkType } from '../../../../shared/contracts/entries.js';

export type CapTotal = { headEntryId: number; linkType: Exclude<LinkType, 'CORRECTION'>; liveCents: number; amountCents: number };

/**
 * CONTRACT §5 invariant, from PostgreSQL's own function (migrations 0012, 0048): the live refunds and
 * reimbursements of every correction chain the given entries (of one workspace) touch, with the amount they may
 * not exceed. The chains' heads are locked by the call. The deferred trigger asks the same
 * function at commit, so the rule has one definition.
 */
export async function capTotals(tx: Transaction, workspaceId: number, entryIds: number[]): Promise<CapTotal[]> {
  const rows = await db().query<{ head_entry_id: number; link_type: CapTotal['linkType']; live_cents: string; amount_cents: number }>(
    'SELECT * FROM entry_cap_totals(CAST(:ws AS int), CAST(:ids AS bigint[]))',
    { replacements: { ws: workspaceId, ids: `{${entryIds.join(',')}}` }, type: QueryTypes.SELECT, transaction: tx },
  );
  return rows.map((r) => ({
    headEntryId: Number(r.head_entry_id),
    linkType: r.link_type,
    liveCents: Number(r.live_cents),
    amountCents: Number(r.amount_cents),
  }));
}

const WHAT = { REFUND: 'refunds', REIMBURSEMENT: 'reimbursements' } as const;

const capBroken = (t: CapTotal) =>
  conflict(`The live ${WHAT[t.linkType]} of entry #${t.headEntryId} would come to ${t.liveCents}, above its amount ${t.amountCents}`);

/** 409 naming the first cap the written rows break (the transaction then rolls back). */
export async function assertCaps(tx: Transaction, workspaceId: number, entryIds: number[]): Promise<CapTotal[]> {
  const totals = await capTotals(tx, workspaceId, entryIds);
  const broken = totals.find((t) => t.liveCents > t.amountCents);
  if (broken) throw capBroken(broken);
  return totals;
}

/**
 * The same cap, asked before a new refund or reimbursement of `head` (the head of its correction chain) is
 * valued and written: 409 when `amountCents` more would break it. Its value in the base currency may not fit
 * the column at all (an amount far above the cap), which would otherwise be refused as malformed (400).
 * assertCaps still checks the written rows.
 */
export async function assertCapRoom(
  tx: Transaction,
  head: { id: number; workspace_id: number; amount_cents: number },
  linkType: CapTotal['linkType'],
  amountCents: number,
): Promise<void> {
  const current = (await capTotals(tx, head.workspace_id, [head.id])).find(
    (t) => t.headEntryId === Number(head.id) && t.linkType === linkType,
  );
  const after: CapTotal = {
    headEntryId: Number(head.id),
    linkType,
    liveCents: (current?.liveCents ?? 0) + amountCents,
    amountCents: current?.amountCents ?? Number(head.amount_cents),
  };
  if (after.liveCents > after.amountCents) throw capBroken(after);
}
