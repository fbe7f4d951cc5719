/** The documents domain's public surface for other domains (DESIGN §2). */
export { presentDocument, type DocumentRow } from './document-rows.js';
export { placeDocumentRequest, requestDocumentInTransaction } from './documents.service.js';
export { inboxRouter } from './inbox/inbox.router.js';
export { uploadToInbox } from './inbox/inbox.service.js';
export { startExtractionWorker, drainExtractions, type ExtractionWorker } from './extraction/extraction-jobs.js';
export { documentsRouter } from './documents.router.js';
export { documentRoutes } from './documents.http.js';

/** Document use cases, for the demo seed. */
export { uploadDocument } from './document-files.service.js';
export { approveDocument, requestDocument } from './documents.service.js';
