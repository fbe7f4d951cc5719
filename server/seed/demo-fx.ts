import { transaction } from '../db/database.js';
import { upsertRates, type RateWrite } from '../domains/fx/index.js';
import type { DemoWorkspace } from './demo-entries.js';

/** The demo currencies besides the USD base (server/seed/demo-entries.ts), with a starting rate in millionths of a USD. */
const START_MICRO_USD: Record<string, number> = { EUR: 1_080_000, GBP: 1_270_000, JPY: 6_700 };
const DAY = 86_400_000;
const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);

/** A deterministic walk, so every demo database has the same rates. */
function random(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

/** millionths → decimal text, exactly ("1080000" → "1.08", "6700" → "0.0067"). */
const microText = (micro: number) => {
  const padded = String(micro).padStart(7, '0');
  return `${padded.slice(0, -6)}.${padded.slice(-6)}`.replace(/\.?0+$/, '');
};

/** Daily rates from `from` to `to` (inclusive) for every demo currency: a walk of at most ±0.3 % a day. */
export function demoRates(from: Date, to: Date): RateWrite[] {
  const rnd = random(20260317);
  const rates: RateWrite[] = [];
  for (const [currency, start] of Object.entries(START_MICRO_USD)) {
    let micro = start;
    for (let t = from.getTime(); t <= to.getTime(); t += DAY) {
      micro = Math.max(1, Math.round(micro * (1 + (rnd() - 0.5) * 0.006)));
      rates.push({ currency, rateDate: isoDay(t), rate: microText(micro) });
    }
  }
  return rates;
}

/**
 * A year of daily EUR, GBP and JPY rates (a week before the first demo entry up to today), so the
 * demo workspace's normalised reports (CONTRACT §17) are complete out of the box. Seeded BEFORE
 * the demo entries, so the ledger core values each entry when it creates it.
 */
export async function seedDemoFxRates(ws: Pick<DemoWorkspace, 'workspaceId'>, today: Date): Promise<void> {
  const from = new Date(Date.UTC(today.getUTCFullYear() - 1, today.getUTCMonth(), 1) - 7 * DAY);
  await transaction((tx) => upsertRates(tx, ws.workspaceId, demoRates(from, today), 'IMPORT'));
}
