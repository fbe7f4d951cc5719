import { QueryTypes } from 'sequelize';
import { db, transaction } from '../../db/database.js';
import { badRequest } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import {
  canonicalRate,
  FX_RATES_LIST_MAX,
  type FxRateObject,
  type ListFxRatesQuery,
  type UpsertFxRateInput,
} from '../../../shared/contracts/fx.js';
import { baseCurrencyOf, loadRate, presentRate, RATE_COLUMNS, upsertRates, type RateRow } from './rate-rows.js';

/** The base currency's rate is always "1" (CONTRACT §17): it is never stored. */
export function assertNotBase(currency: string, base: string): void {
  if (currency === base) throw badRequest(`${currency} is the workspace's base currency; its rate is always "1"`);
}

/** POST /fx-rates: creates or replaces the rate of (workspace, currency, rateDate). Existing entries keep theirs. */
export async function upsertRate(actor: Actor, input: UpsertFxRateInput): Promise<FxRateObject> {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  return transaction(async (tx) => {
    assertNotBase(input.currency, await baseCurrencyOf(tx, input.workspaceId));
    const [row] = await upsertRates(
      tx,
      input.workspaceId,
      [{ currency: input.currency, rateDate: input.rateDate, rate: canonicalRate(input.rate) }],
      'MANUAL',
    );
    return presentRate(row);
  });
}

/** GET /fx-rates: by currency, then date, then id; every filter is served by fx_rates' indexes. */
export async function listRates(actor: Actor, q: ListFxRatesQuery): Promise<FxRateObject[]> {
  scope.requireWorkspaceMember(actor, q.workspaceId);
  const clauses = ['workspace_id = $1'];
  const bind: unknown[] = [q.workspaceId];
  const add = (clause: string, value: unknown) => {
    bind.push(value);
    clauses.push(clause.replace('?', `$${bind.length}`));
  };
  if (q.currency !== undefined) add('currency = ?', q.currency);
  if (q.fromDate !== undefined) add('rate_date >= ?::date', q.fromDate);
  if (q.toDate !== undefined) add('rate_date <= ?::date', q.toDate);
  const rows = await db().query<RateRow>(
    `SELECT ${RATE_COLUMNS} FROM fx_rates WHERE ${clauses.join(' AND ')} ORDER BY currency, rate_date, id LIMIT ${FX_RATES_LIST_MAX + 1}`,
    { bind, type: QueryTypes.SELECT },
  );
  if (rows.length > FX_RATES_LIST_MAX) {
    throw badRequest(`More than ${FX_RATES_LIST_MAX} rates match; narrow the listing with currency, fromDate or toDate`);
  }
  return rows.map(presentRate);
}

/** DELETE /fx-rates/{id}: entries valued with it keep their valuation until revalued. */
export async function deleteRate(actor: Actor, id: number): Promise<{ success: true }> {
  await transaction(async (tx) => {
    const row = await loadRate(actor, id, tx);
    await db().query('DELETE FROM fx_rates WHERE id = $1', { bind: [row.id], transaction: tx });
  });
  return { success: true };
}
