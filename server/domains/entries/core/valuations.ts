import { db, type Transaction } from '../../../db/database.js';
import { recordEvents, type EventActor } from '../audit-events.js';
import type { EntryValuation } from './reactions.js';
import { postEntries } from '../../books/index.js';

export type ValuationChange = { id: number; workspaceId: number; from: EntryValuation; to: EntryValuation };

/**
 * CONTRACT §17 revaluation: new valuations of entries the caller has locked and checked (fx's
 * revalue: not frozen, no closed period), set-based — one UPDATE of the three columns, one
 * FX_REVALUED {from, to} event per entry in its chain.
 */
export async function setValuationRows(tx: Transaction, changes: readonly ValuationChange[], actor: EventActor): Promise<void> {
  if (changes.length === 0) return;
  // one workspace: the update is routed to its shard group on Citus (CONTRACT §24)
  const workspaceId = changes[0].workspaceId;
  if (changes.some((c) => c.workspaceId !== workspaceId)) throw new Error('setValuationRows: changes of one workspace at a time');
  await db().query(
    `UPDATE entries e
        SET fx_rate = c.fx_rate, fx_rate_date = c.fx_rate_date, amount_base_cents = c.amount_base_cents, updated_at = now()
       FROM unnest($1::bigint[], $2::text[], $3::date[], $4::bigint[]) AS c(id, fx_rate, fx_rate_date, amount_base_cents)
      WHERE e.workspace_id = $5::int AND e.id = c.id`,
    {
      bind: [
        changes.map((c) => c.id),
        changes.map((c) => c.to.fxRate),
        changes.map((c) => c.to.fxRateDate),
        changes.map((c) => c.to.amountBaseCents),
        workspaceId,
      ],
      transaction: tx,
    },
  );
  const events = changes.map((c) => ({
    entry: { id: c.id, workspace_id: c.workspaceId },
    kind: 'FX_REVALUED' as const,
    data: { from: c.from, to: c.to },
  }));
  await recordEvents(tx, events, actor);
  // CONTRACT §23: a revaluation changes what the entries post
  await postEntries(
    tx,
    changes.map((c) => ({ id: c.id, workspace_id: c.workspaceId })),
  );
}
