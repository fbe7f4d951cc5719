/**
 * The fx domain's public surface (CONTRACT §17), for the ledger core and other domains.
 *
 * valuate(tx, workspaceId, [{currency, entryDate, amountCents}]) → [{fxRate, fxRateDate, amountBaseCents}]
 * — the valuation of new or edited entries, in input order, one statement per batch.
 */
export { valuate, valuationSql, NO_RATE, type ValuationRequest, type EntryValuation } from './valuation.js';
export { fxRouter } from './fx.router.js';
export { fxRoutes } from './import.http.js';
// for the demo seed (server/seed/demo-fx.ts)
export { upsertRates, type RateWrite } from './rate-rows.js';
