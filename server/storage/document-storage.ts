import { runtime } from '../runtime.js';
import type { Config } from '../config.js';
import { LocalDiskStorage } from './local-disk.js';
import { S3Storage } from './s3.js';
import type { DocumentStorage } from './storage.js';

export { blobKey } from './blob-key.js';

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
