import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import { valuate } from '../../server/domains/fx/index.js';
import { Workspace } from '../../server/db/models/index.js';
import { buildWorkspace } from '../support/factories/index.js';

/**
 * valuate() (the ledger core's call for new and edited entries) against CONTRACT §17, written
 * here from the contract alone: amountBaseCents = amountCents × rate moved between the two
 * currencies' ISO 4217 minor-unit exponents, rounded half to even.
 */

/** ISO 4217 minor units of the currencies used here (from the standard, not from server/lib/money.ts). */
const MINOR_UNITS: Record<string, number> = { JPY: 0, KRW: 0, EUR: 2, USD: 2, GBP: 2, KWD: 3, BHD: 3 };
/** The largest amount an entry may carry (CONTRACT §5), in the base currency too. */
const AMOUNT_MAX = 10n ** 15n;

/** The contract's conversion in plain BigInt: a / b rounded half to even, a = amount × rate × 10^to, b = 10^from. */
function expectedBaseCents(amountCents: number, rate: string, from: string, to: string): bigint {
  const [whole, fraction = ''] = rate.split('.');
  const rateNumerator = BigInt(whole + fraction);
  const rateDenominator = 10n ** BigInt(fraction.length);
  const a = BigInt(amountCents) * rateNumerator * 10n ** BigInt(MINOR_UNITS[to]);
  const b = rateDenominator * 10n ** BigInt(MINOR_UNITS[from]);
  const quotient = a / b;
  const remainder = a - quotient * b;
  if (remainder * 2n < b) return quotient;
  if (remainder * 2n > b) return quotient + 1n;
  return quotient % 2n === 0n ? quotient : quotient + 1n;
}

/** Test-only world building: rates straight into fx_rates (the endpoints have their own tests). */
async function storeRate(workspaceId: number, currency: string, rateDate: string, rate: string): Promise<void> {
  await db().query(
    `INSERT INTO fx_rates (workspace_id, currency, rate_date, rate, source) VALUES ($1, $2, $3, $4, 'MANUAL')
     ON CONFLICT (workspace_id, currency, rate_date) DO UPDATE SET rate = EXCLUDED.rate`,
    { bind: [workspaceId, currency, rateDate, rate], type: QueryTypes.INSERT },
  );
}

async function workspaceIn(base: string): Promise<number> {
  const ws = await buildWorkspace();
  await Workspace.update({ baseCurrency: base }, { where: { id: ws.id } });
  return ws.id;
}

const one = async (ws: number, currency: string, entryDate: string, amountCents: number) =>
  (await valuate(undefined, ws, [{ currency, entryDate, amountCents }]))[0];

let eur: number;
beforeAll(async () => {
  eur = await workspaceIn('EUR');
});

describe('valuate: examples of CONTRACT §17', () => {
  it('100000 JPY at 0.0061 into EUR = 61000 cents', async () => {
    await storeRate(eur, 'JPY', '2026-01-10', '0.0061');
    expect(await one(eur, 'JPY', '2026-01-10', 100_000)).toEqual({ fxRate: '0.0061', fxRateDate: '2026-01-10', amountBaseCents: 61_000 });
  });

  it('the base currency has rate "1", dated the entry date', async () => {
    expect(await one(eur, 'EUR', '2026-03-03', 12_345)).toEqual({ fxRate: '1', fxRateDate: '2026-03-03', amountBaseCents: 12_345 });
  });

  it('rounds half to even: 5 cents × 0.5 = 2, 7 cents × 0.5 = 4, 3 cents × 0.5 = 2', async () => {
    await storeRate(eur, 'USD', '2026-02-01', '0.5');
    const got = await valuate(
      undefined,
      eur,
      [5, 7, 3, 1].map((amountCents) => ({ currency: 'USD', entryDate: '2026-02-01', amountCents })),
    );
    expect(got.map((v) => v.amountBaseCents)).toEqual([2, 4, 2, 0]);
  });

  it('moves between exponents both ways: 1.234 KWD at 3.05 = 376 EUR cents; 1 EUR cent into JPY at 162.5 rounds', async () => {
    await storeRate(eur, 'KWD', '2026-02-01', '3.05');
    expect((await one(eur, 'KWD', '2026-02-01', 1234)).amountBaseCents).toBe(376); // 3.7637 EUR
    const jpy = await workspaceIn('JPY');
    await storeRate(jpy, 'EUR', '2026-02-01', '162.5');
    expect((await one(jpy, 'EUR', '2026-02-01', 1)).amountBaseCents).toBe(2); // 1.625 JPY
    expect((await one(jpy, 'EUR', '2026-02-01', 2)).amountBaseCents).toBe(3); // 3.25 JPY
  });

  it('takes the latest rate on or before the entry date, at most FX_MAX_RATE_AGE_DAYS (7) older', async () => {
    const ws = await workspaceIn('EUR');
    await storeRate(ws, 'GBP', '2026-06-01', '1.1');
    await storeRate(ws, 'GBP', '2026-06-03', '1.2');
    await storeRate(ws, 'GBP', '2026-06-20', '1.3');
    const got = await valuate(
      undefined,
      ws,
      ['2026-05-31', '2026-06-01', '2026-06-02', '2026-06-03', '2026-06-10', '2026-06-11', '2026-06-19', '2026-06-20'].map((entryDate) => ({
        currency: 'GBP',
        entryDate,
        amountCents: 1000,
      })),
    );
    expect(got.map((v) => [v.fxRate, v.fxRateDate, v.amountBaseCents])).toEqual([
      [null, null, null], // before any rate
      ['1.1', '2026-06-01', 1100],
      ['1.1', '2026-06-01', 1100],
      ['1.2', '2026-06-03', 1200],
      ['1.2', '2026-06-03', 1200], // 7 days old: still valid
      [null, null, null], // 8 days old: too old
      [null, null, null],
      ['1.3', '2026-06-20', 1300],
    ]);
  });

  it('answers a batch in input order, mixing currencies, rates and missing rates; no rate means all three null', async () => {
    const ws = await workspaceIn('USD');
    await storeRate(ws, 'EUR', '2026-07-01', '1.0812');
    await storeRate(ws, 'JPY', '2026-07-01', '0.0067');
    const got = await valuate(undefined, ws, [
      { currency: 'JPY', entryDate: '2026-07-02', amountCents: 1500 },
      { currency: 'CHF', entryDate: '2026-07-02', amountCents: 1500 },
      { currency: 'USD', entryDate: '2026-07-02', amountCents: 1500 },
      { currency: 'EUR', entryDate: '2026-07-01', amountCents: 1500 },
    ]);
    expect(got).toEqual([
      { fxRate: '0.0067', fxRateDate: '2026-07-01', amountBaseCents: 1005 },
      { fxRate: null, fxRateDate: null, amountBaseCents: null },
      { fxRate: '1', fxRateDate: '2026-07-02', amountBaseCents: 1500 },
      { fxRate: '1.0812', fxRateDate: '2026-07-01', amountBaseCents: 1622 },
    ]);
    expect(await valuate(undefined, ws, [])).toEqual([]);
  });

  it('reads only the given workspace’s rates', async () => {
    const other = await workspaceIn('EUR');
    await storeRate(other, 'CHF', '2026-08-01', '1.05');
    expect(await one(eur, 'CHF', '2026-08-01', 100)).toEqual({ fxRate: null, fxRateDate: null, amountBaseCents: null });
  });

  it('refuses a converted amount beyond 10^15 minor units instead of returning an inexact number', async () => {
    await storeRate(eur, 'BHD', '2026-09-01', '999999999999999');
    await expect(one(eur, 'BHD', '2026-09-01', 1_000_000_000_000_000)).rejects.toThrow();
  });
});

describe('valuate: property against the contract, every exponent pair', () => {
  const currencies = Object.keys(MINOR_UNITS);
  /** A rate the contract accepts: 1–15 significant digits, 0–10 decimals. */
  const rateArb = fc
    .record({
      digits: fc.oneof(fc.bigInt({ min: 1n, max: 99_999n }), fc.bigInt({ min: 1n, max: 10n ** 15n - 1n })),
      decimals: fc.integer({ min: 0, max: 10 }),
    })
    .map(({ digits, decimals }) => {
      const text = digits.toString().padStart(decimals + 1, '0');
      return decimals === 0 ? text : `${text.slice(0, -decimals)}.${text.slice(-decimals)}`;
    });
  const amountArb = fc.oneof(
    fc.integer({ min: 1, max: 1000 }),
    fc.integer({ min: 1, max: 10_000_000 }),
    fc.integer({ min: 1, max: 1_000_000_000_000_000 }),
  );

  it('equals round-half-even(amountCents × rate × 10^(exp(base) − exp(currency))) for 0/2/3 exponents', async () => {
    const bases: Record<string, number> = {};
    for (const base of ['JPY', 'EUR', 'KWD']) bases[base] = await workspaceIn(base);
    let day = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('JPY', 'EUR', 'KWD'),
        // a batch mixing currencies: exponent pairs 0→0 … 3→3; one too large a result refuses the batch
        fc.array(fc.record({ currency: fc.constantFrom(...currencies), rate: rateArb, amountCents: amountArb }), {
          minLength: 1,
          maxLength: 8,
        }),
        async (base, cases) => {
          day++;
          const entryDate = new Date(Date.UTC(2030, 0, 1) + day * 86_400_000 * 10).toISOString().slice(0, 10);
          const rateDate = new Date(Date.parse(`${entryDate}T00:00:00Z`) - 3 * 86_400_000).toISOString().slice(0, 10);
          const ws = bases[base];
          const rateOf = new Map<string, string>();
          for (const c of cases) if (c.currency !== base && !rateOf.has(c.currency)) rateOf.set(c.currency, c.rate);
          for (const [currency, rate] of rateOf) await storeRate(ws, currency, rateDate, rate);
          const expected = cases.map((c) => {
            const rate = c.currency === base ? '1' : rateOf.get(c.currency)!;
            return { rate, cents: expectedBaseCents(c.amountCents, rate, c.currency, base) };
          });
          const request = cases.map((c) => ({ currency: c.currency, entryDate, amountCents: c.amountCents }));
          if (expected.some((e) => e.cents > AMOUNT_MAX)) {
            await expect(valuate(undefined, ws, request)).rejects.toThrow();
            return;
          }
          const got = await valuate(undefined, ws, request);
          expect(got.map((g) => [g.fxRate, g.amountBaseCents === null ? null : BigInt(g.amountBaseCents)])).toEqual(
            expected.map((e) => [
              e.rate
                .replace(/(\.\d*?)0+$/, '$1')
                .replace(/\.$/, '')
                .replace(/^0+(?=\d)/, ''),
              e.cents,
            ]),
          );
          expect(got.map((g) => g.fxRateDate)).toEqual(cases.map((c) => (c.currency === base ? entryDate : rateDate)));
        },
      ),
      { numRuns: 150 },
    );
  });
});
