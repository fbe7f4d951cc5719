import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../server/db/database.js';
import { runtime } from '../../server/runtime.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { createEntry, entryWithWorld, png, requested, upload, uploaded } from '../support/factories/index.js';
import { events } from '../support/entries.js';
import { approve, documentRowCount, download, fulfil, isComplete, sha256 } from './helpers.js';

let api: Api;

/**
 * A database failure injected inside the document transaction: while an entry id is listed
 * in fail_document_writes, every insert or update of its documents raises after the row was written.
 */
beforeAll(async () => {
  api = await startServer();
  await db().query(`
    CREATE TABLE fail_document_writes (entry_id bigint PRIMARY KEY);
    CREATE FUNCTION fail_document_write() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM fail_document_writes WHERE entry_id = NEW.entry_id) THEN
        RAISE EXCEPTION 'injected failure';
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER fail_document_write AFTER INSERT OR UPDATE ON entry_documents FOR EACH ROW EXECUTE FUNCTION fail_document_write();
  `);
});
afterEach(async () => {
  await db().query('DELETE FROM fail_document_writes');
});

const armFailure = (entryId: number) => db().query('INSERT INTO fail_document_writes VALUES (:entryId)', { replacements: { entryId } });

const blobPath = (sha: string) => path.resolve(runtime().config.DATA_DIR, 'documents', sha.slice(0, 2), sha.slice(2, 4), sha);

/** Every file under DATA_DIR/documents (temporary ones included). */
function storedFiles(): string[] {
  const root = path.resolve(runtime().config.DATA_DIR, 'documents');
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => d.name);
}

describe('a failed upload leaves no orphan row and no orphan file (local disk)', () => {
  it('upload: the transaction fails after the file was written → no row, no file, no event', async () => {
    const { w, entry } = await entryWithWorld(api);
    const bytes = png(101);
    const eventsBefore = (await events(w, entry.id)).length;
    await armFailure(entry.id);
    const res = await upload(w, entry.id, { bytes, name: 'doomed.png' });
    expectErrorBody(res, 500, 'INTERNAL_SERVER_ERROR');
    expect(res.body.message).toBe('Internal server error');
    expect(await documentRowCount('entry_id = :id', { id: entry.id })).toBe(0);
    expect(existsSync(blobPath(sha256(bytes)))).toBe(false);
    expect(storedFiles().filter((f) => f.includes(sha256(bytes)))).toEqual([]);
    expect((await events(w, entry.id)).length).toBe(eventsBefore);
  });

  it('keeps the file when another document references the same content', async () => {
    const { w, entry } = await entryWithWorld(api);
    const failing = await createEntry(w);
    const bytes = png(102);
    const kept = await uploaded(w, entry.id, { bytes, name: 'kept.png' });
    await armFailure(failing.id);
    expectErrorBody(await upload(w, failing.id, { bytes, name: 'doomed.png' }), 500, 'INTERNAL_SERVER_ERROR');
    expect(await documentRowCount('entry_id = :id', { id: failing.id })).toBe(0);
    expect(existsSync(blobPath(kept.sha256))).toBe(true);
    const file = await download(api, w.token, entry.id, kept.id);
    expect(file.bytes.equals(bytes)).toBe(true);
  });

  it('fulfil: a failed transaction leaves the placeholder as it was and removes the new file', async () => {
    const { w, entry } = await entryWithWorld(api);
    const doc = await requested(w, entry.id);
    const bytes = png(103);
    await armFailure(entry.id);
    expectErrorBody(await fulfil(w, entry.id, doc.id, { bytes }), 500, 'INTERNAL_SERVER_ERROR');
    const [row] = (await api.get(`/entries/${entry.id}/documents`, { token: w.token })).body;
    expect(row).toEqual(doc);
    expect(existsSync(blobPath(sha256(bytes)))).toBe(false);
  });

  it('a failed approve changes neither the document, nor completeness, nor the events (one transaction)', async () => {
    const { w, entry } = await entryWithWorld(api);
    const doc = await uploaded(w, entry.id);
    const eventsBefore = (await events(w, entry.id)).length;
    await armFailure(entry.id);
    expectErrorBody(await approve(w, entry.id, doc.id), 500, 'INTERNAL_SERVER_ERROR');
    expect((await api.get(`/entries/${entry.id}/documents/${doc.id}`, { token: w.token })).body.status).toBe('UPLOADED');
    expect(await isComplete(w, entry.id)).toBe(false);
    expect((await events(w, entry.id)).length).toBe(eventsBefore);
  });

  it('a refused upload (415, 409) writes no file either', async () => {
    const { w, entry } = await entryWithWorld(api);
    const before = storedFiles().length;
    expectErrorBody(await upload(w, entry.id, { bytes: png(104), type: 'application/pdf' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    const voided = await createEntry(w);
    expect((await api.post(`/entries/${voided.id}/void`, { reason: 'dup' }, { token: w.token })).status).toBe(200);
    expectErrorBody(await upload(w, voided.id, { bytes: png(105) }), 409, 'CONFLICT');
    expect(storedFiles().length).toBe(before);
  });

  it('a fulfil that replaces a REJECTED file deletes the old file once nothing references it', async () => {
    const { w, entry } = await entryWithWorld(api);
    const first = png(106);
    const doc = await uploaded(w, entry.id, { bytes: first });
    await api.patch(`/entries/${entry.id}/documents/${doc.id}/reject`, { reason: 'unreadable' }, { token: w.token });
    const second = png(107);
    expect((await fulfil(w, entry.id, doc.id, { bytes: second })).status).toBe(200);
    expect(existsSync(blobPath(sha256(first)))).toBe(false);
    expect(existsSync(blobPath(sha256(second)))).toBe(true);
  });

  it('racing uploads of the same content, one failing and one succeeding, never lose the file of the one that succeeded', async () => {
    const { w, entry } = await entryWithWorld(api);
    const failing = await createEntry(w);
    await armFailure(failing.id);
    for (let round = 0; round < 8; round++) {
      const bytes = png(200 + round);
      const [ok, bad] = await Promise.all([
        upload(w, entry.id, { bytes, name: `ok-${round}.png` }),
        upload(w, failing.id, { bytes, name: `bad-${round}.png` }),
      ]);
      expect(ok.status, ok.text).toBe(200);
      expect(bad.status).toBe(500);
      const file = await download(api, w.token, entry.id, ok.body.id);
      expect(file.status).toBe(200);
      expect(file.bytes.equals(bytes)).toBe(true);
    }
    expect(await documentRowCount('entry_id = :id', { id: failing.id })).toBe(0);
    expect(storedFiles().filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
