import { QueryTypes } from 'sequelize';
import { db } from '../../../db/database.js';
import { notFound } from '../../../lib/errors.js';
import { scope, type Actor } from '../../../lib/scope.js';
import type { ExtractionObject } from '../../../../shared/contracts/documents-inbox.js';
import { loadEntry } from '../../entries/index.js';
import { loadExtraction, presentExtraction } from './extraction-rows.js';

type Holder = { kind: 'ENTRY' | 'INBOX'; workspace_id: number; entry_id: number | null; sha256: string | null };

/**
 * GET /documents/{id}/extraction, with the access of the document: an entry's document as its
 * entry (404 when unseen), an inbox document for workspace members. A REQUESTED placeholder has no
 * file: its extraction is NONE.
 */
export async function getExtraction(actor: Actor, id: string): Promise<ExtractionObject> {
  const [holder] = await db().query<Holder>(
    `SELECT 'ENTRY' AS kind, workspace_id, entry_id, sha256 FROM entry_documents WHERE id = :id
     UNION ALL
     SELECT 'INBOX', workspace_id, NULL, sha256 FROM inbox_documents WHERE id = :id
     ORDER BY kind LIMIT 1`,
    { replacements: { id }, type: QueryTypes.SELECT },
  );
  if (!holder) throw notFound('Document');
  if (holder.kind === 'ENTRY') await loadEntry(actor, Number(holder.entry_id));
  else if (!scope.canSeeWorkspaceObject(actor, holder.workspace_id)) throw notFound('Document');
  if (!holder.sha256) return { ...presentExtraction(id, null), status: 'NONE' };
  return presentExtraction(id, await loadExtraction(holder.workspace_id, holder.sha256));
}
