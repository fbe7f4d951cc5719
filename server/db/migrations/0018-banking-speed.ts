import { sql, type Migration } from './types.js';

/**
 * Import speed (issue 19): the trigram index of the bank-line search (0014) keeps new lines in its
 * pending list (GIN fastupdate) up to 64 MB instead of the default 4 MB, so a 100,000-line import
 * appends to the list instead of merging it into the index every few thousand lines inside the
 * import's transaction (about half of the insert's cost). Autovacuum (or the next overflow) merges
 * it; a search reads the pending list meanwhile — the same results, a linear read of that list.
 */
export const m0018: Migration = {
  name: '0018-banking-speed',
  up: sql(`ALTER INDEX bank_lines_search_trgm_idx SET (fastupdate = on, gin_pending_list_limit = 65536);`),
  down: sql(`ALTER INDEX bank_lines_search_trgm_idx RESET (fastupdate, gin_pending_list_limit);`),
};
