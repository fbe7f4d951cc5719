import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';
import { conflict } from '../../../lib/errors.js';
import type { LinkType } from '../../../../shared/contracts/entries.js';

export type CapTotal = { headEntryId: number; linkType: Exclude<LinkType, 'CORRECTION'>; liveCents: number; amountCents: number };

/**
 * CONTRACT §5 invariant, from PostgreSQL's own function (migration 0012): the live refunds and
 * reimbursements of every correction chain the given entries touch, with the amount they may
 * not exceed. The chains' heads are locked by the call. The deferred trigger asks the same
 * function at commit, so the rule has one definition.
 */
export async function capTotals(tx: Transaction, entryIds: number[]): Promise<CapTotal[]> {
  const rows = await db().query<{ head_entry_id: number; link_type: CapTotal['linkType']; live_cents: string; amount_cents: number }>(
    'SELECT * FROM entry_cap_totals(CAST(:ids AS bigint[]))',
    { replacements: { ids: `{${entryIds.join(',')}}` }, type: QueryTypes.SELECT, transaction: tx },
  );
  return rows.map((r) => ({
    headEntryId: Number(r.head_entry_id),
    linkType: r.link_type,
    liveCents: Number(r.live_cents),
    amountCents: Number(r.amount_cents),
  }));
}

const WHAT = { REFUND: 'refunds', REIMBURSEMENT: 'reimbursements' } as const;

/** 409 naming the first cap the written rows break (the transaction then rolls back). */
export async function assertCaps(tx: Transaction, entryIds: number[]): Promise<CapTotal[]> {
  const totals = await capTotals(tx, entryIds);
  const broken = totals.find((t) => t.liveCents > t.amountCents);
  if (broken) {
    throw conflict(
      `The live ${WHAT[broken.linkType]} of entry #${broken.headEntryId} would come to ${broken.liveCents}, above its amount ${broken.amountCents}`,
    );
  }
  return totals;
}
