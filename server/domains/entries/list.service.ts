import { QueryTypes } from 'sequelize';
import { db } from '../../db/database.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { EntryObject, ListEntriesQuery } from '../../../shared/contracts/entries.js';
import { presentEntry, type EntryRow } from './entry-rows.js';
import { entryFilterSql } from './entry-filters.js';
import { listTotals } from './list-totals.js';

/**
 * One page of entries. The page's ids are found first (for most filters from the index alone,
 * which makes deep offsets cheap), then only those rows are read.
 */
export const entryPageSql = (where: string, orderBy: string, limitParam: string, offsetParam: string) =>
  `SELECT e.* FROM entries e
     JOIN (SELECT e.id FROM entries e WHERE ${where} ORDER BY ${orderBy} LIMIT ${limitParam} OFFSET ${offsetParam}) page ON page.id = e.id
    ORDER BY ${orderBy}`;

export async function listEntries(
  actor: Actor,
  q: ListEntriesQuery,
): Promise<{ items: EntryObject[]; total: number; limit: number; offset: number }> {
  const reach = scope.workspaceReach(actor, q.workspaceId);
  const { where, orderBy, params } = entryFilterSql(q, reach);
  const n = params.length;
  const [rows, total] = await Promise.all([
    db().query<EntryRow>(entryPageSql(where, orderBy, `$${n + 1}`, `$${n + 2}`), {
      bind: [...params, q.limit, q.offset],
      type: QueryTypes.SELECT,
    }),
    listTotals.total(q.workspaceId, where, params),
  ]);
  return { items: rows.map(presentEntry), total, limit: q.limit, offset: q.offset };
}
