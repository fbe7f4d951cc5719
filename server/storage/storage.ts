import type { Readable } from 'node:stream';

/**
 * Where document bytes live. Content-addressed: the key is derived from the SHA-256 of the
 * bytes, so the same file is stored once however many documents reference it. Implemented by
 * local-disk.ts and s3.ts; document-storage.ts picks one from the configuration.
 */
export interface DocumentStorage {
  /** Stores the bytes under `key` unless they are already there. */
  put(key: string, bytes: Buffer): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** A stream of the stored bytes; rejects when the object is missing. */
  open(key: string): Promise<Readable>;
  /** Removes the object; a missing one is not an error. */
  delete(key: string): Promise<void>;
}
