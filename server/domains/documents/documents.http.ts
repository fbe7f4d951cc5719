import { Router, type Request, type Response } from 'express';
import { parseInput } from '../../lib/errors.js';
import type { Actor } from '../../lib/scope.js';
import {
  BinaryBody,
  DocumentObject,
  DocumentPathInput,
  EntryDocumentsInput,
  FulfilFields,
  FulfilForm,
  FulfilQuery,
  UploadFields,
  UploadForm,
  UploadQuery,
} from '../../../shared/contracts/documents.js';
import { streamToResponse } from '../../http/streams.js';
import { guardedRoute } from '../../http/guarded-route.js';
import { documentExpressPath } from '../../http/express-paths.js';
import { assertCanFulfil, assertCanUpload, fulfilDocument, openDocumentFile, uploadDocument } from './document-files.service.js';
import { attachmentDisposition, downloadName } from './document-names.js';
import { receiveFile } from './upload-parser.js';
import { MIME } from '../../lib/sniff.js';
import { inboxUpload } from './inbox/inbox.http.js';

/** POST /entries/{entryId}/documents/upload?workspaceId= (multipart `file`, `documentType`) → UPLOADED. */
async function upload(req: Request, res: Response, actor: Actor): Promise<void> {
  const { entryId } = parseInput(EntryDocumentsInput, req.params);
  const { workspaceId } = parseInput(UploadQuery, req.query);
  await assertCanUpload(actor, entryId, workspaceId); // before the body is read
  const { file, fields } = await receiveFile(req, res);
  const { documentType } = parseInput(UploadFields, fields);
  res.status(200).json(await uploadDocument(actor, { entryId, workspaceId, documentType, file }));
}

/** POST /entries/{entryId}/documents/{documentId}/fulfill (multipart `file`) → UPLOADED. */
async function fulfil(req: Request, res: Response, actor: Actor): Promise<void> {
  const { entryId, documentId } = parseInput(DocumentPathInput, req.params);
  const { workspaceId } = parseInput(FulfilQuery, req.query);
  await assertCanFulfil(actor, { entryId, documentId, workspaceId });
  const { file, fields } = await receiveFile(req, res);
  const { documentType } = parseInput(FulfilFields, fields);
  res.status(200).json(await fulfilDocument(actor, { entryId, documentId, workspaceId, documentType, file }));
}

/** GET /entries/{entryId}/documents/{documentId}/download: the stored bytes with their stored type. */
async function download(req: Request, res: Response, actor: Actor): Promise<void> {
  const { entryId, documentId } = parseInput(DocumentPathInput, req.params);
  const { document, stream } = await openDocumentFile(actor, entryId, documentId);
  res.status(200);
  res.setHeader('Content-Type', document.mimeType!);
  res.setHeader('Content-Length', String(document.fileSize));
  res.setHeader('Content-Disposition', attachmentDisposition(downloadName(document.documentName, document.mimeType!)));
  res.setHeader('Content-Digest', `sha-256=:${Buffer.from(document.sha256!, 'hex').toString('base64')}:`);
  res.setHeader('Cache-Control', 'private, no-store');
  await streamToResponse(res, stream);
}

export function documentRoutes(): Router {
  const r = Router();
  r.post('/entries/:entryId/documents/upload', guardedRoute('uploadEntryDocument', { permission: 'entry.create' }, upload));
  r.post('/entries/:entryId/documents/:documentId/fulfill', guardedRoute('fulfillEntryDocument', { permission: 'entry.create' }, fulfil));
  r.get('/entries/:entryId/documents/:documentId/download', guardedRoute('downloadEntryDocument', {}, download));
  r.post('/inbox/documents', guardedRoute('uploadInboxDocument', { permission: 'entry.create' }, inboxUpload));
  return r;
}

const TAG = 'Documents';
const security = [{ Authorization: [] }];
const json = { 'application/json': { schema: DocumentObject } };
const uploadErrors = {
  '400': { description: 'Invalid input' },
  '401': { description: 'Not authenticated' },
  '403': { description: 'Missing entry.create, or not a member of workspaceId' },
  '404': { description: 'Entry (or document) not found, or not in workspaceId' },
  '409': { description: 'Entry VOIDED or CANCELLED, or the document is not REQUESTED/REJECTED' },
  '413': { description: 'File larger than UPLOAD_LIMIT_BYTES' },
  '415': { description: 'File type not allowed, or not matching the declared type' },
};

documentExpressPath('/entries/{entryId}/documents/upload', {
  post: {
    operationId: 'uploadEntryDocument',
    tags: [TAG],
    summary: 'Upload a document file (UPLOADED); its type is sniffed from the bytes',
    description:
      'Allowed types: PDF, PNG, JPEG, WEBP, HEIC, TIFF, GIF, CSV, plain text, XML, XLSX, DOCX, ODS. ' +
      '`documentName` is the file name without any path. Permission entry.create.',
    security,
    requestParams: { path: EntryDocumentsInput, query: UploadQuery },
    requestBody: { required: true, content: { 'multipart/form-data': { schema: UploadForm } } },
    responses: { '200': { description: 'The new document', content: json }, ...uploadErrors },
  },
});

documentExpressPath('/entries/{entryId}/documents/{documentId}/fulfill', {
  post: {
    operationId: 'fulfillEntryDocument',
    tags: [TAG],
    summary: 'Attach the file of a REQUESTED (or replace that of a REJECTED) document → UPLOADED',
    description: 'Permission entry.create. `workspaceId` is optional; when given it must be the entry’s workspace.',
    security,
    requestParams: { path: DocumentPathInput, query: FulfilQuery },
    requestBody: { required: true, content: { 'multipart/form-data': { schema: FulfilForm } } },
    responses: { '200': { description: 'The fulfilled document', content: json }, ...uploadErrors },
  },
});

documentExpressPath('/entries/{entryId}/documents/{documentId}/download', {
  get: {
    operationId: 'downloadEntryDocument',
    tags: [TAG],
    summary: 'Download the file of a document',
    description:
      'Streams the stored bytes with the stored (sniffed) type as Content-Type, `Content-Disposition: attachment` ' +
      'and `Content-Digest` (SHA-256).',
    security,
    requestParams: { path: DocumentPathInput },
    responses: {
      '200': {
        // the stored type is any of CONTRACT §6's allowed ones: a range, so that no client expects one of them
        description: `The file, with its stored (sniffed) type as Content-Type: one of ${Object.values(MIME).join(', ')}`,
        content: { '*/*': { schema: BinaryBody } },
      },
      '400': { description: 'Invalid path parameters' },
      '401': { description: 'Not authenticated' },
      '404': { description: 'Entry or document not found' },
      '409': { description: 'The document is a REQUESTED placeholder without a file' },
    },
  },
});
