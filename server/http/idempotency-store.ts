import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../db/database.js';
import { clock } from '../lib/clock.js';
import { open, seal, type Keyring, type Sealed } from '../lib/crypto.js';
import type { AccessCheck } from '../lib/access-record.js';
import { AppError } from '../lib/errors.js';

/** How long a key and its response are kept (CONTRACT §1). */
export const KEEP_MS = 24 * 3_600_000;

/** A stored response: sealed at rest, since it may hold a secret shown once (an integration's `apiKey`). */
export type StoredResponse = { status: number; type: string; body: string; accessChecks: AccessCheck[] };

export type KeyRow = {
  method: string;
  path: string;
  request_hash: string;
  state: string;
  response_status: number;
  response_type: string | null;
  response_ciphertext: Buffer | null;
  response_iv: Buffer | null;
  response_tag: Buffer | null;
  response_kid: string | null;
  work_committed: boolean;
  /** what the request passed: a replay needs each still to pass (null: stored before migration 0031) */
  access_checks: AccessCheck[] | null;
  created_at: Date;
};

/** The additional authenticated data of a response: its ciphertext opens only in its own row. */
const responseAad = (caller: string, key: string) => `idempotency:${caller}:${key}:response`;

const sealedOf = (row: Pick<KeyRow, 'response_ciphertext' | 'response_iv' | 'response_tag' | 'response_kid'>): Sealed | null =>
  row.response_ciphertext && row.response_iv && row.response_tag && row.response_kid
    ? { ciphertext: row.response_ciphertext, iv: row.response_iv, tag: row.response_tag, kid: row.response_kid }
    : null;

/** The response body of a DONE row, decrypted. */
export function responseBodyOf(caller: string, key: string, row: KeyRow, keys?: Keyring): string {
  const sealed = sealedOf(row);
  return sealed ? open(sealed, responseAad(caller, key), keys) : '';
}

/** Deletes every key older than KEEP_MS, with its stored response (on each claim, and periodically from main.ts). */
export async function purgeExpiredKeys(): Promise<void> {
  await db().query('DELETE FROM idempotency_keys WHERE created_at < :before', {
    replacements: { before: new Date(clock.now().getTime() - KEEP_MS) },
  });
}

/** Inserts the RUNNING row of (caller, key); false when one exists. Expired keys (anyone's) are purged first. */
export async function claimKey(caller: string, key: string, method: string, path: string, requestHash: string): Promise<boolean> {
  await purgeExpiredKeys();
  const rows = await db().query(
    `INSERT INTO idempotency_keys (caller, key, method, path, request_hash, state, created_at)
     VALUES (:caller, :key, :method, :path, :requestHash, 'RUNNING', :now)
     ON CONFLICT (caller, key) DO NOTHING RETURNING key`,
    { replacements: { caller, key, method, path, requestHash, now: clock.now() }, type: QueryTypes.SELECT },
  );
  return rows.length === 1;
}

export const readKey = async (caller: string, key: string): Promise<KeyRow | undefined> =>
  (
    await db().query<KeyRow>('SELECT * FROM idempotency_keys WHERE caller = :caller AND key = :key', {
      replacements: { caller, key },
      type: QueryTypes.SELECT,
    })
  )[0];

export const deleteExpiredKey = (caller: string, key: string, createdAt: Date) =>
  db().query('DELETE FROM idempotency_keys WHERE caller = :caller AND key = :key AND created_at = :at', {
    replacements: { caller, key, at: createdAt },
  });

/**
 * Inside the request's first transaction: its work and this mark commit together, or neither does.
 * Only one run of a key may mark it: a second run (a retry that found no live lock holder, e.g. after
 * a failover took the first run's lock with the old primary, while the first still ran) waits on the
 * row, finds it marked, and rolls its work back with a 409 (CONTRACT §22: a key never writes twice).
 */
export const markWorkCommitted = (caller: string, key: string) => async (tx: Transaction) => {
  const marked = await db().query(
    'UPDATE idempotency_keys SET work_committed = true WHERE caller = :caller AND key = :key AND NOT work_committed RETURNING key',
    { replacements: { caller, key }, transaction: tx, type: QueryTypes.SELECT },
  );
  if (marked.length === 0) throw new AppError('CONFLICT', 'A request with this Idempotency-Key did its work, but its response was lost');
};

/** A 5xx or 401 is not kept (the key may be retried), unless its work committed: running it again would repeat that work. */
export const forgetUnlessCommitted = (caller: string, key: string) =>
  db().query('DELETE FROM idempotency_keys WHERE caller = :caller AND key = :key AND NOT work_committed', {
    replacements: { caller, key },
  });

const sealedColumns = (caller: string, key: string, body: string, keys?: Keyring) => {
  const sealed = seal(body, responseAad(caller, key), keys);
  return { ciphertext: sealed.ciphertext, iv: sealed.iv, tag: sealed.tag, kid: sealed.kid };
};

export const storeResponse = (caller: string, key: string, response: StoredResponse) =>
  db().query(
    `UPDATE idempotency_keys SET state = 'DONE', response_status = :status, response_type = :type,
            response_ciphertext = :ciphertext, response_iv = :iv, response_tag = :tag, response_kid = :kid,
            access_checks = CAST(:checks AS jsonb)
      WHERE caller = :caller AND key = :key`,
    {
      replacements: {
        caller,
        key,
        status: response.status,
        type: response.type,
        checks: JSON.stringify(response.accessChecks),
        ...sealedColumns(caller, key, response.body),
      },
    },
  );

/** Re-seals every stored response not yet under the first key of `keys` (scripts/rotate-keys.ts). */
export async function rotateStoredResponses(keys: Keyring): Promise<{ responses: number; reencrypted: number }> {
  const current = keys[0]?.kid;
  if (!current) throw new Error('no keys given');
  return transaction(async (tx) => {
    const rows = await db().query<KeyRow & { caller: string; key: string }>(
      `SELECT * FROM idempotency_keys WHERE response_kid IS NOT NULL ORDER BY caller, key FOR NO KEY UPDATE`,
      { type: QueryTypes.SELECT, transaction: tx },
    );
    let reencrypted = 0;
    for (const row of rows) {
      if (row.response_kid === current) continue;
      const body = responseBodyOf(row.caller, row.key, row, keys);
      await db().query(
        `UPDATE idempotency_keys SET response_ciphertext = :ciphertext, response_iv = :iv, response_tag = :tag, response_kid = :kid
          WHERE caller = :caller AND key = :key`,
        { replacements: { caller: row.caller, key: row.key, ...sealedColumns(row.caller, row.key, body, keys) }, transaction: tx },
      );
      reencrypted++;
    }
    return { responses: rows.length, reencrypted };
  });
}
