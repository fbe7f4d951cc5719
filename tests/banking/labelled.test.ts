import { beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Api } from '../support/http.js';
import { createEntry, bankWorld, camt053, imported, type Tx } from '../support/factories/index.js';
import { lines } from './helpers.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const addDays = (date: string, days: number) => new Date(Date.parse(date) + days * 86_400_000).toISOString().slice(0, 10);
const PREFIXES = ['SEPA-UEBERWEISUNG ', 'CARD PAYMENT ', 'DD ', 'SEPA CREDIT TRANSFER ', ''];
const VENDORS = [
  'Paper World',
  'Acme Ltd',
  'Globex',
  'Initech',
  'Umbrella Corp',
  'Stark Industries',
  'Wayne Enterprises',
  'Hooli',
  'Vandelay Imports',
  'Soylent',
];

describe('labelled statement: auto-match never wrong, the true entry is the top suggestion (CONTRACT §14)', () => {
  it('generated entries and lines with shifted dates, bank prefixes, upper case, references in remittance text', async () => {
    const w = await bankWorld(api, { autoMatch: true, dateToleranceDays: 5 });
    const rand = rng(1414);
    const truth = new Map<string, number>(); // bank id → true entry id
    const txs: Tx[] = [];
    const equalAmounts = [4_990, 12_000, 25_000];
    for (let i = 0; i < 60; i++) {
      const income = rand() < 0.3;
      const vendor = VENDORS[Math.floor(rand() * VENDORS.length)];
      // a third of the entries share one of three amounts, on different days
      const amount = i % 3 === 0 ? equalAmounts[(i / 3) % equalAmounts.length] : 1_000 + Math.floor(rand() * 200_000);
      const date = addDays('2026-03-01', Math.floor(rand() * 50));
      const invoice = `INV-2026-${String(1000 + i)}`;
      const entry = await createEntry(w, {
        baseCurrency: 'EUR',
        entryType: income ? 'INCOME' : 'EXPENSE',
        amountCents: amount,
        entryDate: date,
        reference: invoice,
        description: `${vendor} ${income ? 'payment' : 'services'} ${i}`,
        fromPartyId: undefined,
        toPartyId: undefined,
      });
      if (i % 10 === 9) continue; // an entry with no line
      const id = `T${i}`;
      truth.set(id, entry.id);
      const prefix = PREFIXES[Math.floor(rand() * PREFIXES.length)];
      const withRef = rand() < 0.85; // card payments and some transfers carry no invoice number
      txs.push({
        id,
        date: addDays(date, Math.floor(rand() * 7) - 3),
        amount: `${income ? '' : '-'}${(amount / 100).toFixed(2)}`,
        name: vendor.toUpperCase(),
        memo: `${prefix}${withRef ? `${invoice.replace(/-/g, rand() < 0.5 ? ' ' : '/')} ` : ''}${vendor.toUpperCase()}`,
      });
    }
    for (let k = 0; k < 8; k++)
      txs.push({
        id: `N${k}`,
        date: addDays('2026-03-01', k * 5),
        amount: `-${k + 1}7.13`,
        name: 'UNKNOWN SHOP',
        memo: 'CARD PAYMENT UNKNOWN SHOP',
      });
    const st = await imported(w, camt053(txs));
    expect(st.importedCount).toBe(txs.length);

    const all = await Promise.all([0, 100].map((offset) => lines(w, { offset })));
    const bankLines = all.flat();
    let wrongAuto = 0;
    let autoMatched = 0;
    for (const l of bankLines.filter((x) => x.status === 'MATCHED')) {
      autoMatched++;
      const m = (await api.get(`/reconciliation/matches/${l.matchId}`, { token: w.token })).body;
      if (m.entryIds.length !== 1 || m.entryIds[0] !== truth.get(l.externalId)) wrongAuto++;
    }
    let withTruth = 0;
    let topIsTrue = 0;
    let noRefLines = 0;
    let noRefTrue = 0;
    for (const l of bankLines.filter((x) => x.status === 'UNMATCHED' && truth.has(x.externalId))) {
      withTruth++;
      const s = (await api.get(`/bank-lines/${l.id}/suggestions`, { token: w.token })).body;
      const hit = s[0]?.entryIds.length === 1 && s[0].entryIds[0] === truth.get(l.externalId);
      if (!/INV/.test(l.description ?? '')) {
        noRefLines++;
        if (hit) noRefTrue++;
      }
      if (hit) topIsTrue++;
      if (!hit && process.env.DEBUG_LABELLED)
        console.log(l.description, l.bookingDate, l.amountCents, truth.get(l.externalId), JSON.stringify(s));
    }
    const share = withTruth ? topIsTrue / withTruth : 1;
    console.log(
      `labelled statement: ${bankLines.length} lines, ${autoMatched} auto-matched (${wrongAuto} wrong), ` +
        `${withTruth} unmatched lines with a true entry, top suggestion true for ${topIsTrue} (${(share * 100).toFixed(1)} %); ` +
        `of those without an invoice number in the text: ${noRefTrue}/${noRefLines}`,
    );
    expect(wrongAuto).toBe(0);
    expect(autoMatched).toBeGreaterThan(0);
    expect(withTruth).toBeGreaterThan(5);
    expect(share).toBeGreaterThanOrEqual(0.9);
  });
});
