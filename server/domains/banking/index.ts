/**
 * The banking domain's public surface (CONTRACT §14): routers, express routes, and the reaction
 * the ledger calls when a matched entry is voided or corrected.
 */
export { bankAccountsRouter } from './accounts.router.js';
export { bankLinesRouter } from './lines.router.js';
export { reconciliationRouter } from './matches.router.js';
export { bankingRoutes } from './statements.http.js';
export { dissolveMatchOfVoidedEntry } from './matches.service.js';
