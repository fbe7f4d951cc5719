import { sql, type Migration } from './types.js';

/**
 * Search speed (issue 23): a GIN index keeps new entries in a pending list (fastupdate) that every
 * search through it reads whole, until the list passes gin_pending_list_limit (default 4 MB) or
 * VACUUM merges it. On the bench's 1,000,000 entries a full 4 MB list of the reference index made
 * one rare-term search read 525 pages and take 4.4 ms instead of 0.5 ms. 256 kB bounds that read to
 * 32 pages; inserts still append to the list and merge it in batches.
 */
export const m0020: Migration = {
  name: '0020-search-pending-list',
  up: sql(`
    ALTER INDEX entries_description_trgm_idx SET (gin_pending_list_limit = 256);
    ALTER INDEX entries_reference_trgm_idx SET (gin_pending_list_limit = 256);
  `),
  down: sql(`
    ALTER INDEX entries_description_trgm_idx RESET (gin_pending_list_limit);
    ALTER INDEX entries_reference_trgm_idx RESET (gin_pending_list_limit);
  `),
};
