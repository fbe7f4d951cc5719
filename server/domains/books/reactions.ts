import type { Transaction } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';

/**
 * The books' face for the ledger core (CONTRACT §23, DESIGN §2a): posting is a step of the core's story, in the
 * transaction of the change that causes it. Imports nothing of entries; only server/domains/entries/ imports it.
 *
 * One statement per call, whatever the number of entries: books_post_entries (migration 0045) derives what each
 * entry posts now (ENTRY, SETTLEMENT), reverses every live posting that differs and posts what is missing. A
 * posting dated in a closed period fails at the database (journal_closed_period → 409).
 */
export type PostedEntry = { id: number | string; workspace_id: number };

/** Posts the entries as they are now (any number, any workspaces): one round trip. */
export async function postEntries(tx: Transaction, entries: readonly PostedEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await preparedQuery(
    tx,
    'books_post_entries',
    `SELECT books_post_entries(w.ws, w.ids)
       FROM (SELECT t.ws, array_agg(t.id ORDER BY t.id) AS ids
               FROM unnest($1::int[], $2::bigint[]) AS t(ws, id) GROUP BY t.ws ORDER BY t.ws) w`,
    [entries.map((e) => e.workspace_id), entries.map((e) => e.id)],
  );
}
