import { sql, type Migration } from './types.js';

/**
 * Stored Idempotency-Key responses are sealed (AES-256-GCM under a CREDENTIALS_KEYS key id, like
 * connection credentials): a response may hold a secret shown once (an integration's `apiKey`).
 * The plaintext column goes. Its responses cannot be encrypted here (the keys are not in the
 * database), so a finished key that had one becomes a key whose response is lost: a repeat gets
 * 409, never a second run of its work. Every such row is gone within 24 h anyway.
 */
export const m0013: Migration = {
  name: '0013-idempotency-encryption',
  up: sql(`
    ALTER TABLE idempotency_keys
      ADD COLUMN response_ciphertext bytea,
      ADD COLUMN response_iv bytea,
      ADD COLUMN response_tag bytea,
      ADD COLUMN response_kid text;
    UPDATE idempotency_keys SET state = 'RUNNING', work_committed = true WHERE state = 'DONE';
    ALTER TABLE idempotency_keys DROP COLUMN response_body;
  `),
  down: sql(`
    ALTER TABLE idempotency_keys ADD COLUMN response_body text;
    DELETE FROM idempotency_keys WHERE state = 'DONE';
    ALTER TABLE idempotency_keys DROP COLUMN response_ciphertext, DROP COLUMN response_iv, DROP COLUMN response_tag,
      DROP COLUMN response_kid;
  `),
};
