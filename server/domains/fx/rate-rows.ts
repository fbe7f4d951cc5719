import { lockById } from '../../db/distributed.js';
import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { badRequest, notFound } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { FxRateObject } from '../../../shared/contracts/fx.js';
import { rateTextSql } from './valuation-sql.js';

export type RateSource = FxRateObject['source'];
export type RateRow = {
  id: number;
  workspace_id: number;
  currency: string;
  rate_date: string;
  rate: string;
  source: RateSource;
  created_at: Date;
};

/** The columns of a rate as RateRow reads them (the rate as canonical text, never a JS number). */
export const RATE_COLUMNS = `id, workspace_id, currency::text AS currency, rate_date, ${rateTextSql('rate')} AS rate, source, created_at`;

export const presentRate = (r: RateRow): FxRateObject => ({
  id: r.id,
  workspaceId: r.workspace_id,
  currency: r.currency,
  rateDate: r.rate_date,
  rate: r.rate,
  source: r.source,
  createdAt: r.created_at.toISOString(),
});

export type RateWrite = { currency: string; rateDate: string; rate: string };

/**
 * Inserts or replaces (same workspace, currency and date) every rate in ONE statement;
 * `rate` is a validated decimal string, cast by PostgreSQL (exact). createdAt stays that of
 * the first write. Returns the written rows with `inserted` telling new from replaced.
 */
export function upsertRates(tx: Transaction, workspaceId: number, rates: readonly RateWrite[], source: RateSource) {
  return db().query<RateRow & { inserted: boolean }>(
    `INSERT INTO fx_rates (workspace_id, currency, rate_date, rate, source)
     SELECT $1, r.currency, r.rate_date, r.rate, $5
       FROM unnest($2::text[], $3::date[], $4::numeric[]) AS r(currency, rate_date, rate)
     ON CONFLICT (workspace_id, currency, rate_date)
       DO UPDATE SET rate = EXCLUDED.rate, source = EXCLUDED.source, updated_at = EXCLUDED.updated_at
     RETURNING ${RATE_COLUMNS}, (xmax = 0) AS inserted`,
    {
      bind: [workspaceId, rates.map((r) => r.currency), rates.map((r) => r.rateDate), rates.map((r) => r.rate), source],
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
}

/** The workspace's base currency, locked against a concurrent change for the rest of `tx`. */
export async function baseCurrencyOf(tx: Transaction, workspaceId: number): Promise<string> {
  const [row] = await db().query<{ base: string }>('SELECT base_currency::text AS base FROM workspaces WHERE id = $1 FOR SHARE', {
    bind: [workspaceId],
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  if (!row) throw badRequest('workspaceId does not exist');
  return row.base;
}

/** A rate the actor's workspaces hold, locked for `tx`, or 404. */
export async function loadRate(actor: Actor, id: number, tx: Transaction): Promise<RateRow> {
  const [row] = await db().query<RateRow>(
    `SELECT ${RATE_COLUMNS} FROM fx_rates WHERE id = $1${await lockById('fx_rates', id, tx, 'FOR UPDATE')}`,
    {
      bind: [id],
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  if (!row || !scope.canSeeWorkspaceObject(actor, row.workspace_id)) throw notFound('FX rate');
  return row;
}
