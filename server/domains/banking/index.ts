/**
 * The banking domain's public surface (CONTRACT §14): routers, express routes, and its
 * reactions to ledger changes (a voided matched entry, unreconciling a matched entry).
 */
export { bankAccountsRouter } from './accounts.router.js';
export { bankLinesRouter } from './lines.router.js';
export { reconciliationRouter } from './matches.router.js';
export { bankingRoutes } from './statements.http.js';
import { dissolveMatchOfVoidedEntry, matchOf } from './matches.service.js';

/** What banking does when the ledger core changes an entry (wired in server/domains/reactions.ts). */
export const bankingReactions = {
  /** A voided (also a corrected original), rejected or cancelled entry leaves its match: lines UNMATCHED, entries unreconciled. */
  dissolveMatchOfVoidedEntry,
  /** The match holding an entry, or null. */
  matchOf,
};
