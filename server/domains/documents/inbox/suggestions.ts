import type { Actor } from '../../../lib/scope.js';
import { DOCUMENT_SUGGESTIONS_MAX, type DocumentSuggestion } from '../../../../shared/contracts/documents-inbox.js';
import { readOf } from '../extraction/extraction-rows.js';
import type { ReadFields } from '../extraction/fields.js';
import { candidatesFor } from './candidates.js';
import { extractionOf, loadInbox } from './inbox-rows.js';
import { bestFirst, scoreCandidate } from './scoring.js';

/** The workspace's entries ranked for what a document reads as: up to 10, best first, each with its reasons. */
export async function rankEntries(workspaceId: number, read: ReadFields): Promise<DocumentSuggestion[]> {
  const scored = (await candidatesFor(workspaceId, read)).map((c) => scoreCandidate(read, c)).filter((s) => s.reasons.length > 0);
  const seen = new Set<number>();
  return scored
    .sort(bestFirst)
    .filter((s) => !seen.has(s.entryId) && seen.add(s.entryId))
    .slice(0, DOCUMENT_SUGGESTIONS_MAX)
    .map(({ entryId, score, reasons }) => ({ entryId, score, reasons }));
}

/** GET /inbox/documents/{id}/suggestions: none once attached or while unread. */
export async function suggestionsFor(actor: Actor, id: string): Promise<DocumentSuggestion[]> {
  const doc = await loadInbox(actor, id);
  const read = readOf(extractionOf(doc.x));
  if (doc.status !== 'UNATTACHED' || !read) return [];
  return rankEntries(doc.workspace_id, read);
}
