import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';

export type NewParty = { name: string; partyType: 'PERSON' | 'ORGANIZATION'; country: string | null };

/** name as sent → id, for every name given */
export type NameIds = Map<string, number>;

async function partiesByName(tx: Transaction, workspaceId: number, names: string[]): Promise<NameIds> {
  // parties may share a name (they are not unique by name): the oldest one is the match
  const rows = await db().query<{ name: string; id: number }>(
    `SELECT DISTINCT ON (n.name) n.name, p.id
       FROM unnest($2::text[]) AS n(name)
       JOIN parties p ON p.workspace_id = $1 AND lower(p.name) = lower(n.name)
      ORDER BY n.name, p.id`,
    { bind: [workspaceId, names], type: QueryTypes.SELECT, transaction: tx },
  );
  return new Map(rows.map((r) => [r.name, r.id]));
}

/**
 * Parties named by ingest items, found (case-insensitive, oldest first) or created. Names that
 * already exist need no lock. Creating a missing name is serialised per (workspace, lower(name))
 * by a transaction-level advisory lock, taken in a fixed order, and the name is looked up again
 * under it: racing batches create each name once.
 */
export async function findOrCreateParties(tx: Transaction, workspaceId: number, wanted: NewParty[]): Promise<NameIds> {
  if (wanted.length === 0) return new Map();
  const found = await partiesByName(
    tx,
    workspaceId,
    wanted.map((p) => p.name),
  );
  const missing = wanted.filter((p) => !found.has(p.name));
  if (missing.length === 0) return found;
  const missingNames = missing.map((p) => p.name);
  await db().query(
    `SELECT count(pg_advisory_xact_lock(k)) FROM (
       SELECT DISTINCT hashtextextended('party-name:' || $1::text || ':' || lower(n), 0) AS k FROM unnest($2::text[]) AS n ORDER BY k
     ) AS keys`,
    { bind: [workspaceId, missingNames], type: QueryTypes.SELECT, transaction: tx },
  );
  const foundMeanwhile = await partiesByName(tx, workspaceId, missingNames);
  const toCreate = missing.filter((p) => !foundMeanwhile.has(p.name));
  if (toCreate.length > 0) {
    await db().query(
      `INSERT INTO parties (workspace_id, name, party_type, country, created_at, updated_at)
       SELECT DISTINCT ON (lower(m.name)) $1, m.name, m.party_type, m.country, $3::timestamptz, $3::timestamptz
         FROM jsonb_to_recordset($2::jsonb) AS m(ord int, name text, party_type text, country text)
        ORDER BY lower(m.name), m.ord`,
      {
        bind: [
          workspaceId,
          JSON.stringify(toCreate.map((p, ord) => ({ ord, name: p.name, party_type: p.partyType, country: p.country }))),
          clock.now(),
        ],
        transaction: tx,
      },
    );
  }
  const created =
    toCreate.length > 0
      ? await partiesByName(
          tx,
          workspaceId,
          toCreate.map((p) => p.name),
        )
      : new Map<string, number>();
  return new Map([...found, ...foundMeanwhile, ...created]);
}

/**
 * Tags named by ingest items, found or created. Tag names are unique per workspace
 * (case-insensitive index), so `ON CONFLICT DO NOTHING` makes racing creations safe.
 */
export async function findOrCreateTags(tx: Transaction, workspaceId: number, names: string[]): Promise<NameIds> {
  if (names.length === 0) return new Map();
  await db().query(
    `INSERT INTO tags (workspace_id, name, created_at, updated_at)
     SELECT $1, n, $3::timestamptz, $3::timestamptz FROM unnest($2::text[]) AS n ORDER BY lower(n)
     ON CONFLICT (workspace_id, lower(name)) WHERE archived_at IS NULL DO NOTHING`,
    { bind: [workspaceId, names, clock.now()], transaction: tx },
  );
  const rows = await db().query<{ name: string; id: number }>(
    `SELECT n.name, t.id FROM unnest($2::text[]) AS n(name) JOIN tags t ON t.workspace_id = $1 AND lower(t.name) = lower(n.name) AND t.archived_at IS NULL`,
    { bind: [workspaceId, names], type: QueryTypes.SELECT, transaction: tx },
  );
  return new Map(rows.map((r) => [r.name, r.id]));
}
