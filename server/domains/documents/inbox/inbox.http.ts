import type { Request, Response } from 'express';
import { parseInput } from '../../../lib/errors.js';
import { InboxDocumentObject, InboxUploadFields, InboxUploadForm } from '../../../../shared/contracts/documents-inbox.js';
import type { Actor } from '../../../lib/scope.js';
import { documentExpressPath } from '../../../http/express-paths.js';
import { receiveFile } from '../upload-parser.js';
import { uploadToInbox } from './inbox.service.js';

/** POST /inbox/documents (multipart `workspaceId`, `file`; entry.create) → the inbox document, its extraction PENDING. */
export async function inboxUpload(req: Request, res: Response, actor: Actor): Promise<void> {
  const { file, fields } = await receiveFile(req, res);
  const { workspaceId } = parseInput(InboxUploadFields, fields);
  res.status(200).json(await uploadToInbox(actor, { workspaceId, file }));
}

documentExpressPath('/inbox/documents', {
  post: {
    operationId: 'uploadInboxDocument',
    tags: ['Inbox'],
    summary: 'Upload an invoice or receipt to the inbox (attached to no entry yet)',
    description:
      'Multipart with the form fields `workspaceId` and `file`. The type is sniffed from the bytes, as for entry documents. The file is ' +
      'read after the upload commits (extraction PENDING until then); an unreadable file never fails the upload. Permission entry.create.',
    security: [{ Authorization: [] }],
    requestBody: { required: true, content: { 'multipart/form-data': { schema: InboxUploadForm } } },
    responses: {
      '200': { description: 'The inbox document', content: { 'application/json': { schema: InboxDocumentObject } } },
      '400': { description: 'Invalid input (workspaceId missing, no file part)' },
      '401': { description: 'Not authenticated' },
      '403': { description: 'Missing entry.create, or not a member of workspaceId' },
      '413': { description: 'File larger than UPLOAD_LIMIT_BYTES' },
      '415': { description: 'File type not allowed, or not matching the declared type' },
    },
  },
});
