/**
 * The books (CONTRACT §23): the public surface (DESIGN §2).
 * Router split: books-read.router.ts (journal, trial balance, general ledger, open items, P&L, balance sheet)
 * and books-write.router.ts (roles, manual journals, verify); each adds its own lines here.
 */
export { booksReadRouter } from './books-read.router.js';
export { journalExportRoutes } from './read/export.http.js';
export { loadTransactions } from './read/journal.js';
export { accountLinesCursor } from './read/account-lines.js'; // the bench's deep general-ledger page
export { postManualJournal } from './journal-write.service.js'; // the demo seed's manual journal
// write side (books-write.router.ts, roles, manual journals, verify; reactions.ts (postEntries) is the ledger core's face, exported here for it)
export { booksWriteRouter } from './books-write.router.js';
export { ensureRoles, roleAccounts } from './roles.service.js';
export { publishPosted } from './journal-write.service.js';
export { assertBankLedgerAccount, postBankOpenings, repostBankSettlements } from './posting.js';
export { postEntries, type PostedEntry } from './reactions.js';
export { newEntryPosting, type NewEntryPosting } from './new-entry-posting.js';
