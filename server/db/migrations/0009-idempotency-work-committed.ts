import { sql, type Migration } from './types.js';

/**
 * `work_committed` is set inside the first database transaction a keyed request commits, so after
 * a crash between that commit and the stored response the key is known to have done its work
 * (a retry must not run it again), while a key whose work never committed can be run afresh.
 */
export const m0009: Migration = {
  name: '0009-idempotency-work-committed',
  up: sql(`ALTER TABLE idempotency_keys ADD COLUMN work_committed boolean NOT NULL DEFAULT false;`),
  down: sql(`ALTER TABLE idempotency_keys DROP COLUMN work_committed;`),
};
