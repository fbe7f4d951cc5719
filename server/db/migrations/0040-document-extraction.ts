import { sql, type Migration } from './types.js';

/**
 * CONTRACT §21: what the service reads from stored documents, and the inbox.
 *
 * - document_extractions: one reading per file content and workspace (files are content-addressed:
 *   the same bytes read the same). A row is written PENDING in the transaction that stores the
 *   document; the background work (pg-boss, server/domains/documents/extraction/extraction-jobs.ts)
 *   reads the file after commit and sets DONE, NONE or FAILED. A PENDING row is the work that
 *   survives a restart: the sweep queues every PENDING row again.
 * - inbox_documents: files stored before any entry exists; ATTACHED ones name the entry and the
 *   entry document they became. auto_checked: whether auto-attach has looked at it (the sweep looks
 *   at the others again).
 * - rules: the trigger DOCUMENT (entries created from an inbox document).
 */
export const m0040: Migration = {
  name: '0040-document-extraction',
  up: sql(`
    CREATE TABLE document_extractions (
      workspace_id integer NOT NULL REFERENCES workspaces(id),
      sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
      storage_key text NOT NULL CHECK (length(storage_key) <= 1024),
      mime_type text NOT NULL CHECK (length(mime_type) <= 255),
      status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'DONE', 'NONE', 'FAILED')),
      source text CHECK (source IN ('EINVOICE', 'PDF_TEXT', 'OCR')),
      fields jsonb,
      reason text CHECK (length(reason) <= 1000),
      attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
      created_at timestamptz NOT NULL DEFAULT now(),
      extracted_at timestamptz,
      PRIMARY KEY (workspace_id, sha256),
      CHECK ((status = 'DONE') = (source IS NOT NULL AND fields IS NOT NULL)),
      CHECK ((status = 'PENDING') = (extracted_at IS NULL))
    );
    CREATE INDEX document_extractions_pending_idx ON document_extractions (created_at) WHERE status = 'PENDING';

    CREATE TABLE inbox_documents (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      workspace_id integer NOT NULL REFERENCES workspaces(id),
      document_name text NOT NULL CHECK (length(document_name) BETWEEN 1 AND 255),
      mime_type text NOT NULL CHECK (length(mime_type) <= 255),
      file_size bigint NOT NULL CHECK (file_size >= 0),
      sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
      storage_key text NOT NULL CHECK (length(storage_key) <= 1024),
      uploaded_by uuid REFERENCES users(id),
      status text NOT NULL DEFAULT 'UNATTACHED' CHECK (status IN ('UNATTACHED', 'ATTACHED')),
      entry_id bigint,
      document_id uuid REFERENCES entry_documents(id),
      attached_by uuid REFERENCES users(id),
      attached_at timestamptz,
      auto_attached boolean NOT NULL DEFAULT false,
      auto_checked boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      FOREIGN KEY (entry_id, workspace_id) REFERENCES entries(id, workspace_id),
      CHECK ((status = 'ATTACHED') = (entry_id IS NOT NULL AND document_id IS NOT NULL AND attached_at IS NOT NULL)),
      CHECK (NOT auto_attached OR (status = 'ATTACHED' AND attached_by IS NULL))
    );
    CREATE INDEX inbox_documents_list_idx ON inbox_documents (workspace_id, status, created_at DESC, id DESC);
    CREATE INDEX inbox_documents_sha256_idx ON inbox_documents (sha256);
    CREATE INDEX inbox_documents_unchecked_idx ON inbox_documents (created_at) WHERE status = 'UNATTACHED' AND NOT auto_checked;

    ALTER TABLE rules DROP CONSTRAINT rules_triggers_check;
    ALTER TABLE rules ADD CONSTRAINT rules_triggers_check
      CHECK (cardinality(triggers) >= 1 AND triggers <@ '{CREATE,INGEST,BANK,DOCUMENT}'::text[]);
  `),
  down: sql(`
    ALTER TABLE rules DROP CONSTRAINT rules_triggers_check;
    ALTER TABLE rules ADD CONSTRAINT rules_triggers_check
      CHECK (cardinality(triggers) >= 1 AND triggers <@ '{CREATE,INGEST,BANK}'::text[]);
    DROP TABLE inbox_documents;
    DROP TABLE document_extractions;
  `),
};
