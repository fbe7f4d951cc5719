import { QueryTypes } from 'sequelize';
import { db } from '../../db/database.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { EntryObject, ListEntriesQuery } from '../../../shared/contracts/entries.js';
import { presentEntry, type EntryRow } from './entry-rows.js';
import { entryFilterSql } from './entry-filters.js';

export async function listEntries(
  actor: Actor,
  q: ListEntriesQuery,
): Promise<{ items: EntryObject[]; total: number; limit: number; offset: number }> {
  const reach = scope.workspaceReach(actor, q.workspaceId);
  const { where, orderBy, params } = entryFilterSql(q, reach);
  const n = params.length;
  const [rows, [{ total }]] = await Promise.all([
    db().query<EntryRow>(`SELECT e.* FROM entries e WHERE ${where} ORDER BY ${orderBy} LIMIT $${n + 1} OFFSET $${n + 2}`, {
      bind: [...params, q.limit, q.offset],
      type: QueryTypes.SELECT,
    }),
    db().query<{ total: number }>(`SELECT count(*)::bigint AS total FROM entries e WHERE ${where}`, {
      bind: params,
      type: QueryTypes.SELECT,
    }),
  ]);
  return { items: rows.map(presentEntry), total, limit: q.limit, offset: q.offset };
}
