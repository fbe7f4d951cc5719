import { QueryTypes } from 'sequelize';
import { db } from '../../db/database.js';
import { onCitus } from '../../db/distributed.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { LinkType } from '../../../shared/contracts/entries.js';
import { loadEntry, presentEntry, type EntryRow } from './entry-rows.js';
import { listEvents, verifyEvents } from './audit-events.js';

type RelatedRow = EntryRow & { link_type: LinkType; role: 'ORIGINAL' | 'DERIVED' };

/** Entries linked to this one; `role` is the listed entry's role in the link. */
export async function relatedEntries(actor: Actor, id: number) {
  const entry = await loadEntry(actor, id);
  // Citus: the links and their entries are the entry's workspace's (a link never crosses workspaces), named so
  // the statement runs on that workspace's shard group (a join by entry id alone needs a repartition there)
  const same = (await onCitus()) ? ' AND l.workspace_id = :ws AND e.workspace_id = :ws' : '';
  const rows = await db().query<RelatedRow>(
    `SELECT e.*, l.link_type, 'DERIVED' AS role FROM entry_links l JOIN entries e ON e.id = l.derived_entry_id WHERE l.original_entry_id = :id${same}
     UNION ALL
     SELECT e.*, l.link_type, 'ORIGINAL' AS role FROM entry_links l JOIN entries e ON e.id = l.original_entry_id WHERE l.derived_entry_id = :id${same}
     ORDER BY id`,
    { replacements: { id, ws: entry.workspace_id }, type: QueryTypes.SELECT },
  );
  return rows
    .filter((r) => scope.canSeeProjectObject(actor, r.workspace_id, r.project_id))
    .map((r) => ({ linkType: r.link_type, role: r.role, entry: presentEntry(r) }));
}

export async function entryEvents(actor: Actor, id: number) {
  await loadEntry(actor, id);
  return listEvents(id);
}

export async function verifyEntryEvents(actor: Actor, id: number) {
  await loadEntry(actor, id);
  return verifyEvents(id);
}
