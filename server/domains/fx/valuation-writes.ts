import { db, type Transaction } from '../../db/database.js';
import type { Actor } from '../../lib/scope.js';
// PHASE 1 STAND-IN: until the ledger core (issue 17, tag core-ready) offers the write, the
// revaluation writes the three columns and records FX_REVALUED here, with the core's own
// event chain writer. Phase 2 replaces this file's body with the core's call.
import { byUser, recordEvents, type EventKind } from '../entries/events.js';
import type { EntryValuation } from '../../../shared/contracts/fx.js';

export type ValuationChange = { id: number; workspaceId: number; from: EntryValuation; to: EntryValuation };

/**
 * Writes new valuations of locked entries and records one FX_REVALUED {from, to} event each,
 * in `tx`, set-based: one UPDATE for all of them, one event insert.
 */
export async function applyValuations(tx: Transaction, changes: readonly ValuationChange[], actor: Actor): Promise<void> {
  if (changes.length === 0) return;
  await db().query(
    `UPDATE entries e
        SET fx_rate = c.fx_rate, fx_rate_date = c.fx_rate_date, amount_base_cents = c.amount_base_cents, updated_at = now()
       FROM unnest($1::bigint[], $2::numeric[], $3::date[], $4::bigint[]) AS c(id, fx_rate, fx_rate_date, amount_base_cents)
      WHERE e.id = c.id`,
    {
      bind: [
        changes.map((c) => c.id),
        changes.map((c) => c.to.fxRate),
        changes.map((c) => c.to.fxRateDate),
        changes.map((c) => c.to.amountBaseCents),
      ],
      transaction: tx,
    },
  );
  const events = changes.map((c) => ({
    entry: { id: c.id, workspace_id: c.workspaceId },
    kind: 'FX_REVALUED' as EventKind,
    data: { from: c.from, to: c.to },
  }));
  await recordEvents(tx, events, byUser(actor));
}
