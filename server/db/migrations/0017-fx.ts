import { sql, type Migration } from './types.js';

/**
 * CONTRACT §17: exchange rates per workspace, and the valuation an entry carries in its
 * workspace's base currency.
 *
 * - fx_rates: one rate per (workspace, currency, day). `rate` is the value of one unit of
 *   `currency` in the base currency: NUMERIC(25,10) holds every rate the contract accepts
 *   (> 0, at most 10 decimals and 15 significant digits) exactly. The unique constraint's
 *   index, carrying `rate`, answers "the latest rate on or before a date" with one
 *   backward index-only probe.
 * - entries.fx_rate / fx_rate_date / amount_base_cents: all three set or all three null
 *   (fx_rate is the canonical decimal TEXT of the rate used — the API's string, exact, and never
 *   turned into a JS number by the NUMERIC type parser when rows are read with SELECT *)
 *   (no rate). Written by the ledger core only (CONTRACT §17: fixed at create and when the
 *   amount or date is edited, and by POST /fx-rates/revalue).
 * - entries_report_idx (0006) is rebuilt with amount_base_cents among its columns, so the
 *   normalised reports read the same narrow index-only scan as the others (one index, not
 *   a second one every entry write would maintain). entries_unconverted_idx holds only the
 *   counted entries WITHOUT a valuation (a currency with no rate yet; base-currency entries
 *   always have one), so the `unconverted` part of a normalised report reads those few rows
 *   instead of the whole range, and most entry writes never touch it.
 * - fx_base_cents(amount, rate, from_exp, to_exp): THE conversion (used by valuation and by
 *   revaluation alike): amount × rate moved from the entry currency's minor-unit exponent to
 *   the base currency's, rounded half to even, in exact integer numeric arithmetic
 *   (n = amount × rate·10^10 × 10^to_exp, d = 10^(10 + from_exp); q, r = n div d, n mod d).
 *   Amounts and rates are positive, so truncation is floor. A result beyond 10^15 minor units
 *   (the cap of amountCents, and what keeps sums of a million entries exact) is an
 *   out-of-range error (22003 → 400), never a wrapped or inexact value.
 */
export const m0017: Migration = {
  name: '0017-fx',
  up: sql(`
    CREATE TABLE fx_rates (
      id bigserial PRIMARY KEY,
      workspace_id integer NOT NULL REFERENCES workspaces(id),
      currency char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
      rate_date date NOT NULL,
      rate numeric(25, 10) NOT NULL CHECK (rate > 0),
      source text NOT NULL CHECK (source IN ('MANUAL', 'IMPORT')),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT fx_rates_ws_currency_date_key UNIQUE (workspace_id, currency, rate_date) INCLUDE (rate)
    );
    CREATE INDEX fx_rates_ws_date_idx ON fx_rates (workspace_id, rate_date);

    CREATE FUNCTION fx_base_cents(amount bigint, rate numeric, from_exp integer, to_exp integer) RETURNS bigint
      LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
    DECLARE
      n numeric := amount::numeric * trunc(rate * 10000000000) * trunc(10::numeric ^ to_exp);
      d numeric := trunc(10::numeric ^ (10 + from_exp));
      q numeric := div(n, d);
      r numeric := mod(n, d);
    BEGIN
      IF 2 * r > d OR (2 * r = d AND mod(q, 2) = 1) THEN
        q := q + 1;
      END IF;
      IF q > 1000000000000000 THEN
        RAISE EXCEPTION 'the amount in the base currency (% minor units) exceeds 10^15', q USING ERRCODE = '22003';
      END IF;
      RETURN q;
    END $$;

    ALTER TABLE entries
      ADD COLUMN fx_rate text CHECK (fx_rate ~ '^[0-9]{1,15}([.][0-9]{1,10})?$' AND fx_rate::numeric > 0),
      ADD COLUMN fx_rate_date date,
      ADD COLUMN amount_base_cents bigint CHECK (amount_base_cents BETWEEN 0 AND 1000000000000000),
      ADD CONSTRAINT entries_fx_all_or_none CHECK (
        (fx_rate IS NULL AND fx_rate_date IS NULL AND amount_base_cents IS NULL)
        OR (fx_rate IS NOT NULL AND fx_rate_date IS NOT NULL AND amount_base_cents IS NOT NULL));

    DROP INDEX entries_report_idx;
    CREATE INDEX entries_report_idx ON entries (workspace_id, entry_date)
      INCLUDE (entry_type, amount_cents, base_currency, project_id, from_party_id, to_party_id, id, amount_base_cents)
      WHERE entry_status IN ('PENDING', 'UNDER_REVIEW', 'COMPLETED');
    CREATE INDEX entries_unconverted_idx ON entries (workspace_id, entry_date)
      INCLUDE (entry_type, amount_cents, base_currency, project_id)
      WHERE amount_base_cents IS NULL AND entry_status IN ('PENDING', 'UNDER_REVIEW', 'COMPLETED');
  `),
  down: sql(`
    DROP INDEX entries_unconverted_idx;
    DROP INDEX entries_report_idx;
    CREATE INDEX entries_report_idx ON entries (workspace_id, entry_date)
      INCLUDE (entry_type, amount_cents, base_currency, project_id, from_party_id, to_party_id, id)
      WHERE entry_status IN ('PENDING', 'UNDER_REVIEW', 'COMPLETED');
    ALTER TABLE entries
      DROP CONSTRAINT entries_fx_all_or_none,
      DROP COLUMN amount_base_cents,
      DROP COLUMN fx_rate_date,
      DROP COLUMN fx_rate;
    DROP FUNCTION fx_base_cents(bigint, numeric, integer, integer);
    DROP TABLE fx_rates;
  `),
};
