import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../../db/database.js';
import { runtime } from '../../../runtime.js';
import { lockEntry, SYSTEM } from '../../entries/index.js';
import { closedPeriodAt } from '../../periods/index.js';
import { readOf } from '../extraction/extraction-rows.js';
import type { ReadFields } from '../extraction/fields.js';
import { attachInTransaction, defaultTypeOf } from './attach.js';
import { candidatesFor } from './candidates.js';
import { extractionOf, loadInbox } from './inbox-rows.js';
import { numberFit, partyFit } from './scoring.js';

const AUTO_WINDOW_DAYS = 30;
const within = (a: string, b: string) => Math.abs(Date.parse(a) - Date.parse(b)) <= AUTO_WINDOW_DAYS * 86_400_000;

/** Read exactly (an e-invoice's total and currency), not guessed from text. */
const exact = (read: ReadFields) =>
  read.totalCents !== null &&
  read.totalCents > 0 &&
  read.currency !== null &&
  read.issueDate !== null &&
  read.fields.totalCents?.confidence === 1 &&
  read.fields.currency?.confidence === 1;

/**
 * The one entry a document belongs to beyond doubt (CONTRACT §21), or null: exactly one entry
 * matches the exact total and currency and either the document number or the supplier, within 30
 * days of the issue date; and it has no document of that type yet (a REQUESTED placeholder is no
 * document: it is fulfilled). Two matches, or a match already documented: nothing.
 */
async function soleMatch(tx: Transaction, workspaceId: number, read: ReadFields, type: string): Promise<number | null> {
  if (!exact(read)) return null;
  const matches = (await candidatesFor(workspaceId, read, tx)).filter(
    (c) =>
      Number(c.amount_cents) === read.totalCents &&
      c.base_currency.trim() === read.currency &&
      within(c.entry_date, read.issueDate!) &&
      (numberFit(read, c) || partyFit(read, c) === 1),
  );
  const ids = [...new Set(matches.map((c) => Number(c.id)))];
  return ids.length === 1 && !(await hasDocumentOfType(tx, ids[0], type)) ? ids[0] : null;
}

/** Whether the entry has a document of `type` with a file (a REQUESTED placeholder is a request, not a document). */
async function hasDocumentOfType(tx: Transaction, entryId: number, type: string): Promise<boolean> {
  const [documented] = await db().query<{ n: number }>(
    `SELECT count(*)::int AS n FROM entry_documents WHERE entry_id = :id AND document_type = :type AND status <> 'REQUESTED'`,
    { replacements: { id: entryId, type }, type: QueryTypes.SELECT, transaction: tx },
  );
  return documented.n > 0;
}

/** Tries auto-attach on one inbox document (its own transaction); marks it looked at either way. */
export async function autoAttach(inboxId: string): Promise<boolean> {
  return transaction(async (tx) => {
    const doc = await loadInbox(null, inboxId, tx, true);
    if (doc.status !== 'UNATTACHED' || doc.auto_checked) return false;
    const extraction = extractionOf(doc.x);
    if (extraction?.status === 'PENDING' || !extraction) return false; // looked at once read
    await db().query('UPDATE inbox_documents SET auto_checked = true WHERE id = :id', { replacements: { id: inboxId }, transaction: tx });
    const read = readOf(extraction);
    if (!read) return false;
    const type = defaultTypeOf(doc);
    const entryId = await soleMatch(tx, doc.workspace_id, read, type);
    if (entryId === null) return false;
    const entry = await lockEntry(null, entryId, tx);
    // under the entry's lock: another document attached meanwhile (two invoices racing for one entry) makes it documented
    if (await hasDocumentOfType(tx, entryId, type)) return false;
    if (entry.entry_status === 'VOIDED' || entry.entry_status === 'CANCELLED' || entry.entry_status === 'REJECTED') return false;
    if (await closedPeriodAt(tx, entry.workspace_id, entry.entry_date)) return false;
    await attachInTransaction(tx, doc, entry, type, SYSTEM, null);
    return true;
  });
}

/** Auto-attach for the workspace's unattached inbox documents of this content that it has not looked at. */
export async function autoAttachUnchecked(workspaceId: number, sha256: string): Promise<void> {
  const rows = await db().query<{ id: string }>(
    `SELECT id FROM inbox_documents WHERE workspace_id = :ws AND sha256 = :sha256 AND status = 'UNATTACHED' AND NOT auto_checked ORDER BY created_at, id`,
    { replacements: { ws: workspaceId, sha256 }, type: QueryTypes.SELECT },
  );
  for (const { id } of rows) {
    try {
      await autoAttach(id);
    } catch (err) {
      runtime().logger.warn({ err, inboxId: id }, 'auto-attach failed');
    }
  }
}
