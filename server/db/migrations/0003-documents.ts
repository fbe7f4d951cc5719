import { sql, type Migration } from './types.js';

export const m0003: Migration = {
  name: '0003-documents',
  up: sql(`
    CREATE TABLE entry_documents (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      entry_id bigint NOT NULL,
      workspace_id integer NOT NULL,
      document_name text NOT NULL CHECK (length(document_name) BETWEEN 1 AND 255),
      document_type text NOT NULL CHECK (document_type IN ('BASIS', 'PAYMENT_PROOF', 'SUPPORTING', 'CREDIT_NOTE')),
      status text NOT NULL CHECK (status IN ('REQUESTED', 'UPLOADED', 'APPROVED', 'REJECTED')),
      mime_type text CHECK (length(mime_type) <= 255),
      file_size bigint CHECK (file_size >= 0),
      sha256 text CHECK (sha256 ~ '^[0-9a-f]{64}$'),
      storage_key text CHECK (length(storage_key) <= 1024),
      uploaded_by uuid REFERENCES users(id),
      approved_by uuid REFERENCES users(id),
      comment text CHECK (length(comment) <= 2000),
      rejection_reason text CHECK (length(rejection_reason) <= 2000),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      FOREIGN KEY (entry_id, workspace_id) REFERENCES entries(id, workspace_id),
      -- a REQUESTED placeholder has no file; every other status has one, described completely
      CHECK ((status = 'REQUESTED') = (sha256 IS NULL)),
      CHECK ((sha256 IS NULL) = (storage_key IS NULL) AND (sha256 IS NULL) = (mime_type IS NULL) AND (sha256 IS NULL) = (file_size IS NULL)),
      CHECK (status <> 'REJECTED' OR rejection_reason IS NOT NULL),
      CHECK (status <> 'APPROVED' OR approved_by IS NOT NULL)
    );
    CREATE INDEX entry_documents_entry_idx ON entry_documents (entry_id, created_at);
    -- content-addressed files: "is this blob still referenced?" before deleting one
    CREATE INDEX entry_documents_sha256_idx ON entry_documents (sha256) WHERE sha256 IS NOT NULL;
  `),
  down: sql(`
    DROP TABLE entry_documents;
  `),
};
