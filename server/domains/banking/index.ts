/**
 * The banking domain's public surface (CONTRACT §14): routers, express routes, and its
 * reactions to ledger changes (a voided matched entry, unreconciling a matched entry).
 */
export { bankAccountsRouter } from './accounts.router.js';
export { bankLinesRouter } from './lines.router.js';
export { reconciliationRouter } from './matches.router.js';
export { bankingRoutes } from './statements.http.js';
import { matchOf } from './matches.service.js';
import { releaseMatch } from './match-rows.js';

/** What banking does when the ledger core changes an entry (wired in server/domains/reactions.ts). */
export const bankingReactions = {
  /** The match holding an entry, with its entries, or null. */
  matchOf,
  /** Banking's part of dissolving a match (the core has locked its entries and unreconciles them): lines UNMATCHED, match gone. */
  releaseMatch,
};
/** Text comparison of the bank matcher, reused by the documents' suggestions (CONTRACT §21). */

/** Bank use cases, for the demo seed. */
export { createAccount } from './accounts.service.js';
export { importStatement } from './import.service.js';
export { ignoreLine, listLines } from './lines.service.js';
