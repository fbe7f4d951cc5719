import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { assertBlobKey } from './blob-key.js';
import type { DocumentStorage } from './storage.js';

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException)?.code === 'ENOENT';

/** Files under `${DATA_DIR}/documents`, outside anything the HTTP server serves. */
export class LocalDiskStorage implements DocumentStorage {
  readonly root: string;

  constructor(dataDir: string) {
    this.root = path.resolve(dataDir, 'documents');
  }

  pathOf(key: string): string {
    assertBlobKey(key);
    return path.join(this.root, ...key.split('/'));
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const target = this.pathOf(key);
    if (await this.exists(key)) return;
    // DATA_DIR keeps its own permissions (the embedded PostgreSQL's user must reach DATA_DIR/pg);
    // only the documents tree is private
    await mkdir(path.dirname(this.root), { recursive: true });
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    // write a private temporary file, flush it, then rename: readers never see a partial file
    const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temp, target);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(key))).isFile();
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
  }

  async open(key: string): Promise<Readable> {
    const handle = await open(this.pathOf(key), 'r');
    return handle.createReadStream();
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }
}
