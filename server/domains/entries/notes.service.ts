import { QueryTypes } from 'sequelize';
import { db, transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import type { Actor } from '../../lib/scope.js';
import type { NoteObject } from '../../../shared/contracts/entries.js';
import { loadEntry, lockEntry } from './entry-rows.js';
import { byUser, recordEvent } from './audit-events.js';

type NoteRow = {
  id: string;
  entry_id: number;
  content: string;
  author_id: string;
  author_name: string;
  author_email: string;
  created_at: Date;
};

const present = (r: NoteRow): NoteObject => ({
  id: r.id,
  entryId: r.entry_id,
  content: r.content,
  authorId: r.author_id,
  author: { id: r.author_id, name: r.author_name, email: r.author_email },
  createdAt: r.created_at.toISOString(),
});

export async function listNotes(actor: Actor, entryId: number): Promise<NoteObject[]> {
  await loadEntry(actor, entryId);
  const rows = await db().query<NoteRow>(
    `SELECT n.id, n.entry_id, n.content, n.author_id, u.name AS author_name, u.email AS author_email, n.created_at
       FROM entry_notes n JOIN users u ON u.id = n.author_id
      WHERE n.entry_id = :id ORDER BY n.created_at DESC, n.id DESC`,
    { replacements: { id: entryId }, type: QueryTypes.SELECT },
  );
  return rows.map(present);
}

export async function addNote(actor: Actor, entryId: number, content: string): Promise<NoteObject> {
  return transaction(async (tx) => {
    const entry = await lockEntry(actor, entryId, tx);
    const [row] = await db().query<{ id: string; created_at: Date }>(
      `INSERT INTO entry_notes (entry_id, workspace_id, author_id, content, created_at) VALUES (:id, :ws, :author, :content, :now)
       RETURNING id, created_at`,
      {
        replacements: { id: entryId, ws: entry.workspace_id, author: actor.userId, content, now: clock.now() },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    await recordEvent(tx, entry, 'NOTE_ADDED', { noteId: row.id }, byUser(actor));
    return present({
      id: row.id,
      entry_id: entryId,
      content,
      author_id: actor.userId,
      author_name: actor.name,
      author_email: actor.email,
      created_at: row.created_at,
    });
  });
}
