import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../server/db/database.js';
import { runtime } from '../../server/runtime.js';
import { S3Storage } from '../../server/storage/s3.js';
import { documentStorage } from '../../server/storage/document-storage.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { createEntry, entryWithWorld, pdf, png, requested, upload, uploaded } from '../support/factories/index.js';
import { approve, documentRowCount, download, fulfil, reject, sha256 } from './helpers.js';

/** STORAGE=s3 against a local S3-compatible server (s3rver) on a random loopback port. */
let api: Api;
let s3rver: S3rver;
let s3dir: string;
let client: S3Client;
const BUCKET = 'fes-documents';
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

beforeAll(async () => {
  s3dir = mkdtempSync(path.join(os.tmpdir(), 'fes-s3rver-'));
  s3rver = new S3rver({ address: '127.0.0.1', port: 0, directory: s3dir, silent: true });
  const { port } = await s3rver.run();
  const endpoint = `http://127.0.0.1:${port}`;
  client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: CREDENTIALS });
  await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
  Object.assign(runtime().config, {
    STORAGE: 's3',
    S3_ENDPOINT: endpoint,
    S3_BUCKET: BUCKET,
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    S3_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    S3_FORCE_PATH_STYLE: true,
  });
  api = await startServer();
  await db().query(`
    CREATE TABLE fail_document_writes (entry_id bigint PRIMARY KEY);
    CREATE FUNCTION fail_document_write() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM fail_document_writes WHERE entry_id = NEW.entry_id) THEN RAISE EXCEPTION 'injected failure'; END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER fail_document_write AFTER INSERT OR UPDATE ON entry_documents FOR EACH ROW EXECUTE FUNCTION fail_document_write();
  `);
});

afterAll(async () => {
  client?.destroy();
  await s3rver?.close();
  rmSync(s3dir, { recursive: true, force: true });
});

const objectKey = (sha: string) => `documents/${sha.slice(0, 2)}/${sha.slice(2, 4)}/${sha}`;

async function objectExists(sha: string): Promise<boolean> {
  try {
    await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: objectKey(sha) }));
    return true;
  } catch (err) {
    if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
    throw err;
  }
}

async function objectKeys(): Promise<string[]> {
  const out = await client.send(new ListObjectsV2Command({ Bucket: BUCKET }));
  return (out.Contents ?? []).map((o) => o.Key!).sort();
}

describe('S3 storage driver', () => {
  it('is the configured driver', () => {
    expect(documentStorage()).toBeInstanceOf(S3Storage);
  });

  it('stores uploads content-addressed in the bucket and downloads them byte for byte', async () => {
    const { w, entry } = await entryWithWorld(api);
    const bytes = Buffer.concat([pdf('s3'), Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256))]);
    const doc = await uploaded(w, entry.id, { bytes, name: 'statement.pdf' });
    expect(doc.sha256).toBe(sha256(bytes));
    expect(await objectExists(doc.sha256)).toBe(true);
    const file = await download(api, w.token, entry.id, doc.id);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/pdf');
    expect(file.bytes.equals(bytes)).toBe(true);
    expect(sha256(file.bytes)).toBe(doc.sha256);
    // nothing went to the local disk
    expect(existsSync(path.resolve(runtime().config.DATA_DIR, 'documents', doc.sha256.slice(0, 2)))).toBe(false);
  });

  it('keeps one object for the same content, and fulfils through it too', async () => {
    const { w, entry } = await entryWithWorld(api);
    const bytes = png(300);
    const a = await uploaded(w, entry.id, { bytes, name: 'a.png' });
    const req = await requested(w, entry.id);
    const b = await fulfil(w, entry.id, req.id, { bytes, name: 'b.png' });
    expect(b.status, b.text).toBe(200);
    expect(b.body.sha256).toBe(a.sha256);
    expect((await objectKeys()).filter((k) => k.endsWith(a.sha256))).toEqual([objectKey(a.sha256)]);
    expect((await download(api, w.token, entry.id, req.id)).bytes.equals(bytes)).toBe(true);
    expect((await approve(w, entry.id, a.id)).status).toBe(200);
  });

  it('a failed upload leaves no row and no object; a shared object stays', async () => {
    const { w, entry } = await entryWithWorld(api);
    const failing = await createEntry(w);
    await db().query('INSERT INTO fail_document_writes VALUES (:id)', { replacements: { id: failing.id } });
    const lonely = png(301);
    expectErrorBody(await upload(w, failing.id, { bytes: lonely }), 500, 'INTERNAL_SERVER_ERROR');
    expect(await objectExists(sha256(lonely))).toBe(false);

    const shared = png(302);
    const kept = await uploaded(w, entry.id, { bytes: shared });
    expectErrorBody(await upload(w, failing.id, { bytes: shared }), 500, 'INTERNAL_SERVER_ERROR');
    expect(await objectExists(kept.sha256)).toBe(true);
    expect(await documentRowCount('entry_id = :id', { id: failing.id })).toBe(0);
  });

  it('replacing a REJECTED file deletes the old object once unreferenced', async () => {
    const { w, entry } = await entryWithWorld(api);
    const first = png(303);
    const doc = await uploaded(w, entry.id, { bytes: first });
    expect((await reject(w, entry.id, doc.id, 'blurry')).status).toBe(200);
    const second = png(304);
    expect((await fulfil(w, entry.id, doc.id, { bytes: second })).status).toBe(200);
    expect(await objectExists(sha256(first))).toBe(false);
    expect(await objectExists(sha256(second))).toBe(true);
  });
});
