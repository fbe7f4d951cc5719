import { sql, type Migration } from './types.js';

/**
 * Issue 28 hole 4 (CONTRACT §1): a stored response keeps the access checks its request passed
 * (permission, workspaces, projects), so a replay is served only while each still passes.
 * NULL for responses stored before: they expire within 24 h.
 */
export const m0031: Migration = {
  name: '0031-idempotency-access-checks',
  up: sql(`ALTER TABLE idempotency_keys ADD COLUMN access_checks jsonb;`),
  down: sql(`ALTER TABLE idempotency_keys DROP COLUMN access_checks;`),
};
