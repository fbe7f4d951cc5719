import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import { form, type EntryWorld, type UploadOptions } from '../support/factories/index.js';
import type { Api, ApiResponse } from '../support/http.js';

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

export const DOCUMENT_KEYS = [
  'id',
  'entryId',
  'documentName',
  'documentType',
  'status',
  'mimeType',
  'fileSize',
  'sha256',
  'uploadedBy',
  'approvedBy',
  'comment',
  'rejectionReason',
  'createdAt',
  'updatedAt',
].sort();

/** POST /entries/{id}/documents/{docId}/fulfill (multipart). */
export function fulfil(w: EntryWorld, entryId: number, documentId: string, opts: UploadOptions): Promise<ApiResponse> {
  const query = opts.workspaceId === null || opts.workspaceId === undefined ? {} : { workspaceId: opts.workspaceId };
  return w.api.request('POST', `/entries/${entryId}/documents/${documentId}/fulfill`, {
    token: opts.token ?? w.token,
    query,
    rawBody: form(opts, opts.documentType !== undefined),
  });
}

export const approve = (w: EntryWorld, entryId: number, documentId: string, token = w.token) =>
  w.api.patch(`/entries/${entryId}/documents/${documentId}/approve`, undefined, { token });

export const reject = (w: EntryWorld, entryId: number, documentId: string, reason?: string, token = w.token) =>
  w.api.patch(`/entries/${entryId}/documents/${documentId}/reject`, reason === undefined ? {} : { reason }, { token });

export async function getDoc(w: EntryWorld, entryId: number, documentId: string): Promise<any> {
  const res = await w.api.get(`/entries/${entryId}/documents/${documentId}`, { token: w.token });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** The raw bytes of a download (the JSON client would decode them as text). */
export async function download(api: Api, token: string, entryId: number, documentId: string) {
  const res = await fetch(`${api.baseUrl}/entries/${entryId}/documents/${documentId}/download`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

export async function documentRowCount(where = 'true', replacements: Record<string, unknown> = {}): Promise<number> {
  const [row] = await db().query<{ n: number }>(`SELECT count(*)::int AS n FROM entry_documents WHERE ${where}`, {
    replacements,
    type: QueryTypes.SELECT,
  });
  return row.n;
}

export async function isComplete(w: EntryWorld, entryId: number): Promise<boolean> {
  const res = await w.api.get(`/entries/${entryId}`, { token: w.token });
  expect(res.status).toBe(200);
  return res.body.isComplete;
}
