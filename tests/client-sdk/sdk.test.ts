import { createHash } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiError, createClient, createIngestClient, toApiError, type Client, type LogoutReason } from '../../client-sdk/src/index.js';
import { User } from '../../server/db/models/index.js';
import { PERMISSIONS } from '../../shared/permissions.js';
import { buildUser, buildWorkspace, type TestUser } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';
import { sessionCache } from '../../server/domains/auth/authenticate.js';

/** The SDK against the real server: tRPC procedures, the REST file helpers, ingest, errors and the session. */

const PDF = new TextEncoder().encode('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

let api: Api;
let user: TestUser;
let workspaceId: number;
let projectId: number;

async function signedIn(who: { email: string; password: string } = user) {
  const onLogout = vi.fn<(reason: LogoutReason) => void>();
  const client = createClient({ baseUrl: api.baseUrl, onLogout });
  await client.session.login(who.email, who.password);
  return { client, onLogout };
}

async function newEntry(client: Client, overrides: { description?: string; tagIds?: number[] } = {}) {
  return client.trpc.entries.create.mutate({
    projectId,
    entryType: 'EXPENSE',
    amountCents: 12_345,
    baseCurrency: 'USD',
    entryDate: '2026-03-10',
    ...overrides,
  });
}

/** Reads a web stream chunk by chunk, as a caller streaming a large export would. */
async function readStream(stream: ReadableStream<Uint8Array>): Promise<{ text: string; chunks: number }> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let chunks = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: text + decoder.decode(), chunks };
    chunks += 1;
    text += decoder.decode(value, { stream: true });
  }
}

beforeAll(async () => {
  api = await startServer();
  user = await buildUser();
  const ws = await buildWorkspace({ members: [user.id] });
  workspaceId = ws.id;
  projectId = ws.projectIds[0]!;
});

describe('tRPC procedures', () => {
  it('logs in, reads the caller and creates, reads and lists entries with typed results', async () => {
    const { client } = await signedIn();
    const me = await client.trpc.auth.me.query();
    expect(me.email).toBe(user.email);

    const entry = await newEntry(client, { description: 'Stationery' });
    expect(entry).toMatchObject({ projectId, workspaceId, entryStatus: 'PENDING', amountCents: 12_345 });
    const detail = await client.trpc.entries.get.query({ id: entry.id });
    expect(detail.documents).toEqual([]);
    const page = await client.trpc.entries.list.query({ workspaceId, search: 'Stationery' });
    expect(page.items.map((e) => e.id)).toEqual([entry.id]);
  });

  it('turns a tRPC error into an ApiError with status, code and message', async () => {
    const { client } = await signedIn();
    const notFound = await client.trpc.entries.get.query({ id: 987_654_321 }).catch((e: unknown) => e);
    expect(toApiError(notFound)).toMatchObject({ status: 404, code: 'NOT_FOUND' });

    const invalid = await client.trpc.entries.create
      .mutate({ projectId, entryType: 'EXPENSE', amountCents: -1, baseCurrency: 'USD', entryDate: '2026-03-10' })
      .catch((e: unknown) => e);
    const error = toApiError(invalid);
    expect(error).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect(error?.issues?.length).toBeGreaterThan(0);
  });
});

describe('documents', () => {
  it('uploads a document (multipart) and downloads the same bytes with name and type', async () => {
    const { client } = await signedIn();
    const entry = await newEntry(client);
    const document = await client.files.uploadDocument({
      entryId: entry.id,
      workspaceId,
      documentType: 'BASIS',
      file: PDF,
      fileName: 'dir/receipt.pdf',
    });
    expect(document).toMatchObject({ entryId: entry.id, documentName: 'receipt.pdf', documentType: 'BASIS', status: 'UPLOADED' });
    expect(document).toMatchObject({ mimeType: 'application/pdf', fileSize: PDF.length, sha256: sha256(PDF) });

    const listed = await client.trpc.documents.list.query({ entryId: entry.id });
    expect(listed.map((d) => d.id)).toEqual([document.id]);

    const download = await client.files.downloadDocument({ entryId: entry.id, documentId: document.id });
    expect(download).toMatchObject({ fileName: 'receipt.pdf', contentType: 'application/pdf', size: PDF.length });
    expect(sha256(await download.bytes())).toBe(document.sha256);
  });

  it('uploads a File (Blob with a name), taking the name from it, and reads a non-ASCII name back', async () => {
    const { client } = await signedIn();
    const entry = await newEntry(client);
    const name = 'Rechnung März "2026".pdf';
    const file = new File([PDF], name, { type: 'application/pdf' });
    const document = await client.files.uploadDocument({ entryId: entry.id, workspaceId, documentType: 'SUPPORTING', file });
    expect(document).toMatchObject({ documentName: name, documentType: 'SUPPORTING', mimeType: 'application/pdf' });
    const download = await client.files.downloadDocument({ entryId: entry.id, documentId: document.id });
    expect(download.fileName).toBe(name);
    expect(await download.text()).toBe(new TextDecoder().decode(PDF));
  });

  it('throws typed errors: 415 for a disallowed type, 403 for a foreign workspace, 404 for an entry outside the workspace', async () => {
    const { client } = await signedIn();
    const entry = await newEntry(client);
    const elf = new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    const unsupported = await client.files
      .uploadDocument({ entryId: entry.id, workspaceId, documentType: 'BASIS', file: elf, fileName: 'a.bin' })
      .catch((e: unknown) => e);
    expect(unsupported).toBeInstanceOf(ApiError);
    expect(unsupported).toMatchObject({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
    expect((unsupported as ApiError).requestId).toMatch(/\S/);

    const foreign = await buildWorkspace();
    await expect(
      client.files.uploadDocument({ entryId: entry.id, workspaceId: foreign.id, documentType: 'BASIS', file: PDF, fileName: 'r.pdf' }),
    ).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN' });

    const other = await buildWorkspace({ members: [user.id] });
    await expect(
      client.files.uploadDocument({ entryId: entry.id, workspaceId: other.id, documentType: 'BASIS', file: PDF, fileName: 'r.pdf' }),
    ).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
    await expect(
      client.files.downloadDocument({ entryId: entry.id, documentId: '00000000-0000-4000-8000-000000000000' }),
    ).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('refuses an upload without a file name before sending anything', async () => {
    const { client } = await signedIn();
    await expect(client.files.uploadDocument({ entryId: 1, workspaceId, documentType: 'BASIS', file: PDF })).rejects.toThrow(/fileName/);
  });
});

describe('exports', () => {
  it('streams the CSV export with the documented header, honouring list filters (tagIds as a list)', async () => {
    const { client } = await signedIn();
    const tag = await client.trpc.tags.create.mutate({ workspaceId, name: `csv-${Date.now()}` });
    const tagged = await newEntry(client, { description: 'Tagged for CSV', tagIds: [tag.id] });
    await newEntry(client, { description: 'Not tagged' });

    const csv = await client.files.exportEntriesCsv({ workspaceId, tagIds: [tag.id] });
    expect(csv.contentType).toMatch(/^text\/csv/);
    expect(csv.fileName).toMatch(new RegExp(`^entries-${workspaceId}-\\d{4}-\\d{2}-\\d{2}\\.csv$`));
    const { text, chunks } = await readStream(csv.body);
    expect(chunks).toBeGreaterThan(0);
    const lines = text.trim().split(/\r?\n/);
    expect(lines[0]).toBe('ID,Date,Type,Status,Amount,Currency,Description,Reference,From Party,To Party,Reconciled,Tags');
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual([String(tagged.id)]);
    expect(lines[1]).toContain('123.45');
  });

  it('fetches the PDF report, and answers 403 without entry.export', async () => {
    const { client } = await signedIn();
    await newEntry(client);
    const pdf = await client.files.exportReportPdf({ workspaceId, from: '2026-01-01', to: '2026-12-31' });
    expect(pdf.contentType).toBe('application/pdf');
    expect(pdf.fileName).toBe(`report-${workspaceId}-2026-01-01-2026-12-31.pdf`);
    // saved to disk the way the README shows: streamed, never held in memory as a whole
    const target = path.join(mkdtempSync(path.join(os.tmpdir(), 'sdk-pdf-')), pdf.fileName!);
    await pipeline(Readable.fromWeb(pdf.body), createWriteStream(target));
    const bytes = readFileSync(target);
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(bytes.length).toBeGreaterThan(1000);
    rmSync(path.dirname(target), { recursive: true, force: true });

    const reader = await buildUser({ permissions: PERMISSIONS.filter((p) => p !== 'entry.export') });
    const limited = await buildWorkspace({ members: [reader.id] });
    const { client: readerClient } = await signedIn(reader);
    await expect(readerClient.files.exportReportPdf({ workspaceId: limited.id })).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN' });
    await expect(readerClient.files.exportEntriesCsv({ workspaceId: limited.id })).rejects.toMatchObject({ status: 403 });
  });
});

describe('ingest with an API key', () => {
  it('creates entries, reports duplicates on a repeat, and refuses a bad key or body with ApiError', async () => {
    const { client } = await signedIn();
    const integration = await client.trpc.integrations.create.mutate({ workspaceId, name: 'Bank feed' });
    const ingest = createIngestClient({ baseUrl: api.baseUrl, apiKey: integration.apiKey });
    const items = ['bank-1', 'bank-2'].map((externalId) => ({
      externalId,
      projectId,
      entryType: 'INCOME' as const,
      amountCents: 5_000,
      baseCurrency: 'USD',
      entryDate: '2026-04-01',
      fromParty: { name: 'ACME Ltd' },
    }));
    const first = await ingest.ingest(items);
    expect(first).toMatchObject({ created: 2, duplicates: 0, failed: 0 });
    const ids = first.results.map((r) => r.entryId);
    const again = await ingest.ingest(items);
    expect(again).toMatchObject({ created: 0, duplicates: 2, failed: 0 });
    expect(again.results.map((r) => r.entryId)).toEqual(ids);
    const ingested = await client.trpc.entries.get.query({ id: ids[0]! });
    expect(ingested.parties.from?.name).toBe('ACME Ltd');

    const badKey = createIngestClient({ baseUrl: api.baseUrl, apiKey: 'not-a-key' });
    await expect(badKey.ingest(items)).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    await expect(ingest.ingest([])).rejects.toMatchObject({ status: 400, code: 'BAD_REQUEST' });
  });
});

describe('session against the server', () => {
  it('refreshes the token through /auth/refresh and keeps working', async () => {
    const { client, onLogout } = await signedIn();
    await expect(client.session.refresh()).resolves.toBe(true);
    expect(client.session.getToken()).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    await expect(client.trpc.auth.me.query()).resolves.toMatchObject({ email: user.email });
    expect(onLogout).not.toHaveBeenCalled();
  });

  it('logs out: the server revokes the token and the client calls onLogout("user")', async () => {
    const { client, onLogout } = await signedIn();
    const token = client.session.getToken()!;
    await client.session.logout();
    expect(onLogout).toHaveBeenCalledExactlyOnceWith('user');
    expect(client.session.getToken()).toBeNull();
    expect((await api.get('/auth/me', { token })).status).toBe(401);
  });

  it('ends the session with "unauthorized" when the server starts refusing the token', async () => {
    const who = await buildUser();
    const { client, onLogout } = await signedIn(who);
    await User.update({ isActive: false }, { where: { id: who.id } });
    await sessionCache.settled(); // a direct DB change reaches the auth cache through its trigger
    await expect(client.rest.request('GET', '/auth/me')).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(onLogout).toHaveBeenCalledExactlyOnceWith('unauthorized');
    expect(client.session.getToken()).toBeNull();
  });

  it('rejects a wrong password with ApiError 401 and keeps no session', async () => {
    const client = createClient({ baseUrl: api.baseUrl });
    await expect(client.session.login(user.email, 'wrong-password-1')).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(client.session.getToken()).toBeNull();
  });
});
