import { toDownload, type Download } from './download.js';
import type { Query, RestClient } from './rest.js';
import type { Document, DocumentType, EntryExportFilters, ReportQuery } from './types.js';

export interface UploadDocumentInput {
  entryId: number;
  /** The entry's workspace (the server answers 404 when the entry is not in it). */
  workspaceId: number;
  documentType: DocumentType;
  /** The file: a Blob/File, or raw bytes. */
  file: Blob | Uint8Array | ArrayBuffer;
  /** Stored as `documentName` (any path part is dropped). Defaults to the File's name. */
  fileName?: string;
  /**
   * The declared type. Optional: the server sniffs the type from the bytes, and answers 415 when a
   * declared type differs from the sniffed one. A Blob's own `type` is used when this is absent.
   */
  contentType?: string;
  /** Makes a retried upload safe (`Idempotency-Key`). */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** What tRPC cannot carry: multipart uploads, file downloads and the CSV/PDF streams. */
export interface FileHelpers {
  /** `POST /entries/{entryId}/documents/upload?workspaceId=` (multipart) → the UPLOADED document. */
  uploadDocument(input: UploadDocumentInput): Promise<Document>;
  /** `GET /entries/{entryId}/documents/{documentId}/download` → the stored file. */
  downloadDocument(input: { entryId: number; documentId: string; signal?: AbortSignal }): Promise<Download>;
  /**
   * `GET /entries/export/csv` → every matching entry as CSV, streamed (permission entry.export).
   * `bom: true` starts the file with a UTF-8 byte-order mark, for Excel.
   */
  exportEntriesCsv(filters: EntryExportFilters, options?: { bom?: boolean; signal?: AbortSignal }): Promise<Download>;
  /** `GET /reports/export/pdf` → the PDF report of the period (permission entry.export). */
  exportReportPdf(query: ReportQuery, options?: { signal?: AbortSignal }): Promise<Download>;
}

export function createFileHelpers(rest: RestClient): FileHelpers {
  return {
    async uploadDocument(input) {
      const form = new FormData();
      form.append('documentType', input.documentType);
      form.append('file', asBlob(input.file, input.contentType), fileNameFor(input));
      const headers: Record<string, string> = { accept: 'application/json' };
      if (input.idempotencyKey) headers['idempotency-key'] = input.idempotencyKey;
      const path = `/entries/${encodeURIComponent(input.entryId)}/documents/upload`;
      const res = await rest.send('POST', path, { query: { workspaceId: input.workspaceId }, body: form, headers, signal: input.signal });
      return (await res.json()) as Document;
    },
    async downloadDocument({ entryId, documentId, signal }) {
      const path = `/entries/${encodeURIComponent(entryId)}/documents/${encodeURIComponent(documentId)}/download`;
      return toDownload(await rest.send('GET', path, { signal }));
    },
    async exportEntriesCsv(filters, options = {}) {
      const res = await rest.send('GET', '/entries/export/csv', {
        query: { ...toQuery(filters), ...(options.bom ? { bom: true } : {}) },
        headers: { accept: 'text/csv' },
        signal: options.signal,
      });
      return toDownload(res);
    },
    async exportReportPdf(query, options = {}) {
      const res = await rest.send('GET', '/reports/export/pdf', {
        query: toQuery(query),
        headers: { accept: 'application/pdf' },
        signal: options.signal,
      });
      return toDownload(res);
    },
  };
}

function asBlob(file: UploadDocumentInput['file'], contentType: string | undefined): Blob {
  if (file instanceof Blob) return contentType && contentType !== file.type ? new Blob([file], { type: contentType }) : file;
  const bytes = file instanceof Uint8Array ? file : new Uint8Array(file);
  return new Blob([bytes as Uint8Array<ArrayBuffer>], contentType ? { type: contentType } : {});
}

function fileNameFor(input: UploadDocumentInput): string {
  if (input.fileName) return input.fileName;
  const named = input.file as Partial<File>;
  if (typeof named.name === 'string' && named.name) return named.name;
  throw new TypeError('uploadDocument needs a fileName when the file is not a File');
}

/** Filters as a query string: lists comma-separated (the documented form), the rest as text. */
function toQuery(filters: object): Query {
  const query: Query = {};
  for (const [key, value] of Object.entries(filters)) {
    if (value === undefined || value === null) continue;
    query[key] = Array.isArray(value) ? value.join(',') : String(value);
  }
  return query;
}
