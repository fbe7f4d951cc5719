import { createHash } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../db/database.js';
import { blobKey, documentStorage } from '../../storage/document-storage.js';
import { runtime } from '../../runtime.js';

export type Blob = { bytes: Buffer; sha256: string; key: string };

export function blobOf(bytes: Buffer): Blob {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return { bytes, sha256, key: blobKey(sha256) };
}

/**
 * Serialises everything that writes or deletes the blob of one SHA-256 (content-addressed
 * files are shared between documents): held until the transaction ends.
 */
export async function holdBlob(tx: Transaction, sha256: string): Promise<void> {
  await db().query('SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))', {
    replacements: { key: `entry-document-blob:${sha256}` },
    transaction: tx,
  });
}

/** Writes the bytes before any row refers to them (a no-op when the same content is stored already). */
export const storeBlob = (blob: Blob) => documentStorage().put(blob.key, blob.bytes);

/**
 * Inside the transaction that inserts the referencing row: under the blob lock, makes sure
 * the bytes are still there (a failed upload of the same content may have removed them meanwhile).
 */
export async function keepBlobForRow(tx: Transaction, blob: Blob): Promise<void> {
  await holdBlob(tx, blob.sha256);
  await documentStorage().put(blob.key, blob.bytes);
}

/** Deletes the blob of `sha256` when no document row references it (after a failed upload or a replaced file). */
export async function releaseBlobIfUnreferenced(sha256: string): Promise<void> {
  await transaction(async (tx) => {
    await holdBlob(tx, sha256);
    const [{ n }] = await db().query<{ n: number }>(
      `SELECT ((SELECT count(*) FROM entry_documents WHERE sha256 = :sha256) + (SELECT count(*) FROM inbox_documents WHERE sha256 = :sha256))::int AS n`,
      {
        replacements: { sha256 },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    if (n === 0) await documentStorage().delete(blobKey(sha256));
  });
}

/** Same, for cleanup paths that must not hide the error that led there. */
export async function releaseBlobQuietly(sha256: string): Promise<void> {
  try {
    await releaseBlobIfUnreferenced(sha256);
  } catch (err) {
    runtime().logger.error({ err, sha256 }, 'could not release an unreferenced document file');
  }
}
