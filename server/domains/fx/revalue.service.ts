import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../db/database.js';
import { scope, type Actor } from '../../lib/scope.js';
import { runtime } from '../../runtime.js';
import type { EntryValuation, RevalueInput, RevalueResult } from '../../../shared/contracts/fx.js';
import { closedPeriodNameSql, lockPeriodsShared } from '../periods/index.js';
import { baseCentsSql, chosenRateSql, rateTextSql } from './valuation-sql.js';
import { byUser, ledger, type ValuationChange } from '../entries/index.js';

/** Statuses whose entries are never changed (CONTRACT §5): left out of a revaluation entirely. */
const FROZEN = `('VOIDED', 'CANCELLED')`;

/**
 * The entries of the window with their current and recomputed valuation. $1 workspace,
 * $2/$3 the inclusive window, $4 optional currency, $5 FX_MAX_RATE_AGE_DAYS; `only` narrows
 * to ids in $6 (locked by the caller through ledger.lockMany), so what is written is computed
 * from the locked rows' current amount, currency and date.
 */
const windowSql = (only: boolean) => `
  WITH ws AS (SELECT base_currency::text AS base FROM workspaces WHERE id = $1),
  win AS (
    SELECT e.id, e.workspace_id, e.base_currency::text AS currency, e.entry_date, e.amount_cents,
           e.fx_rate AS old_rate, e.fx_rate_date AS old_rate_date, e.amount_base_cents AS old_base,
           ${closedPeriodNameSql('e.workspace_id', 'e.entry_date')} IS NOT NULL AS closed
      FROM entries e
     WHERE e.workspace_id = $1 AND e.entry_date BETWEEN $2::date AND $3::date AND e.entry_status NOT IN ${FROZEN}
       AND ($4::text IS NULL OR e.base_currency = $4::text)
       ${only ? 'AND e.id = ANY($6::bigint[])' : ''}),
  pairs AS (
    SELECT p.currency, p.entry_date, r.rate, r.rate_date
      FROM (SELECT DISTINCT currency, entry_date FROM win WHERE NOT closed) p CROSS JOIN ws
      CROSS JOIN LATERAL ${chosenRateSql('$1', 'ws.base', 'p.currency', 'p.entry_date', '$5')} r),
  valued AS (
    SELECT w.*, ${rateTextSql('p.rate')} AS new_rate, p.rate_date AS new_rate_date,
           ${baseCentsSql('w.amount_cents', 'p.rate', 'w.currency', 'ws.base')} AS new_base
      FROM win w CROSS JOIN ws LEFT JOIN pairs p ON p.currency = w.currency AND p.entry_date = w.entry_date)
  `;
const CHANGED = '(v.old_rate, v.old_rate_date, v.old_base) IS DISTINCT FROM (v.new_rate, v.new_rate_date, v.new_base)';

type Tally = { closed: number; missing_same: number; unchanged: number; changed_ids: number[] | null };
type Locked = {
  id: number;
  workspace_id: number;
  old_rate: string | null;
  old_rate_date: string | null;
  old_base: number | null;
  new_rate: string | null;
  new_rate_date: string | null;
  new_base: number | null;
};

const valuationOf = (rate: string | null, date: string | null, base: number | null): EntryValuation => ({
  fxRate: rate,
  fxRateDate: date,
  amountBaseCents: base,
});

/** Counts the window and finds the entries whose valuation would change (no locks). */
async function tally(tx: Transaction, bind: unknown[]): Promise<Tally> {
  const [row] = await db().query<Tally>(
    `${windowSql(false)}
     SELECT count(*) FILTER (WHERE v.closed) AS closed,
            count(*) FILTER (WHERE NOT v.closed AND v.new_rate IS NULL AND NOT ${CHANGED}) AS missing_same,
            count(*) FILTER (WHERE NOT v.closed AND v.new_rate IS NOT NULL AND NOT ${CHANGED}) AS unchanged,
            array_agg(v.id ORDER BY v.id) FILTER (WHERE NOT v.closed AND ${CHANGED}) AS changed_ids
       FROM valued v`,
    { bind, type: QueryTypes.SELECT, transaction: tx },
  );
  return row;
}

/**
 * POST /fx-rates/revalue (CONTRACT §17): recomputes the valuation of the window's entries
 * (VOIDED and CANCELLED ones, frozen, are left out) from the rates stored now, by the same
 * rule and SQL as a new entry's. Entries in closed periods are never touched
 * (skippedClosed); entries without a usable rate count as missingRate (a valuation they
 * had is cleared: the rates stored now no longer give one); each change records
 * FX_REVALUED {from, to}. One transaction; closing a period waits for it (shared period lock,
 * taken before the closed-period check reads).
 */
export async function revalue(actor: Actor, input: RevalueInput): Promise<RevalueResult> {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  return transaction(async (tx) => {
    await lockPeriodsShared(tx, input.workspaceId);
    const bind = [input.workspaceId, input.fromDate, input.toDate, input.currency ?? null, runtime().config.FX_MAX_RATE_AGE_DAYS];
    const counted = await tally(tx, bind);
    const candidates = (counted.changed_ids ?? []).map(Number);
    const result: RevalueResult = {
      revalued: 0,
      unchanged: counted.unchanged,
      skippedClosed: counted.closed,
      missingRate: counted.missing_same,
    };
    if (candidates.length === 0) return result;
    // locked by the ledger core first; the window is then read afresh from the locked rows
    await ledger.lockMany(tx, candidates, input.workspaceId);
    const locked = await db().query<Locked>(`${windowSql(true)} SELECT v.* FROM valued v ORDER BY v.id`, {
      bind: [...bind, candidates],
      type: QueryTypes.SELECT,
      transaction: tx,
    });
    const changes: ValuationChange[] = [];
    for (const r of locked) {
      const from = valuationOf(r.old_rate, r.old_rate_date, r.old_base);
      const to = valuationOf(r.new_rate, r.new_rate_date, r.new_base);
      const same = from.fxRate === to.fxRate && from.fxRateDate === to.fxRateDate && from.amountBaseCents === to.amountBaseCents;
      if (to.fxRate === null) result.missingRate++;
      else if (same) result.unchanged++;
      else result.revalued++;
      if (!same) changes.push({ id: r.id, workspaceId: r.workspace_id, from, to });
    }
    await ledger.setValuations(tx, changes, byUser(actor));
    return result;
  });
}
