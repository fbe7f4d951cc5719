import { distributeOnCitus } from '../citus.js';
import type { Migration } from './types.js';

/**
 * CONTRACT §24: on a database with the `citus` extension, the tenant tables are distributed by
 * workspace (server/db/citus.ts says how and what stays on the coordinator). On plain PostgreSQL
 * this migration changes nothing.
 */
export const m0049: Migration = {
  name: '0049-citus',
  up: async (db) => {
    await distributeOnCitus(db);
  },
  down: async () => {
    // undistributing (undistribute_table) is an operator's decision, never a rollback's
  },
};
