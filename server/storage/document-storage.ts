import type { Readable } from 'node:stream';
import { runtime } from '../runtime.js';
import type { Config } from '../config.js';
import { LocalDiskStorage } from './local-disk.js';
import { S3Storage } from './s3.js';

export { blobKey } from './blob-key.js';

/**
 * Where document bytes live. Content-addressed: the key is derived from the SHA-256 of the
 * bytes, so the same file is stored once however many documents reference it.
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

let cached: { signature: string; storage: DocumentStorage } | undefined;

function build(config: Config): DocumentStorage {
  if (config.STORAGE === 's3') {
    return new S3Storage({
      endpoint: config.S3_ENDPOINT!,
      bucket: config.S3_BUCKET!,
      region: config.S3_REGION,
      accessKeyId: config.S3_ACCESS_KEY_ID,
      secretAccessKey: config.S3_SECRET_ACCESS_KEY,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
    });
  }
  return new LocalDiskStorage(config.DATA_DIR);
}

/** The storage configured by STORAGE (`local` under DATA_DIR by default, or `s3` with S3_*). */
export function documentStorage(): DocumentStorage {
  const c = runtime().config;
  const signature = JSON.stringify([
    c.STORAGE,
    c.DATA_DIR,
    c.S3_ENDPOINT,
    c.S3_BUCKET,
    c.S3_REGION,
    c.S3_ACCESS_KEY_ID,
    c.S3_FORCE_PATH_STYLE,
  ]);
  if (cached?.signature !== signature) cached = { signature, storage: build(c) };
  return cached.storage;
}
