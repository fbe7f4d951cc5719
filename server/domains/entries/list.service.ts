import { QueryTypes } from 'sequelize';
import { db } from '../../db/database.js';
import { decodeCursor, encodeCursor, listScope } from '../../lib/page-cursor.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { EntryPage, ListEntriesQuery } from '../../../shared/contracts/entries.js';
import { presentEntry, type EntryRow } from './entry-rows.js';
import { entryFilterSql, likePattern, searchMatch, SORT_COLUMNS, SORT_TYPES } from './entry-filters.js';
import { listTotals } from './list-totals.js';

/**
 * One page of entries. The page's ids are found first (for most filters from the index alone,
 * which makes deep offsets cheap), then only those rows are read.
 */
export const entryPageSql = (where: string, orderBy: string, limitParam: string, offsetParam: string) =>
  `SELECT e.* FROM entries e
     JOIN (SELECT e.id FROM entries e WHERE ${where} ORDER BY ${orderBy} LIMIT ${limitParam} OFFSET ${offsetParam}) page ON page.id = e.id
    ORDER BY ${orderBy}`;

/**
 * How a search is planned (searchPlan below). A search first walks the list's own sort order (its
 * index) over at most `walkRows` rows passing the other filters, and stops as soon as the page is
 * full: a frequent term costs a few rows. The walk serves pages up to `walkNeedMax` rows deep
 * (offset + limit + 1). Otherwise the first `sampleRows` rows tell which word of the term is
 * rarest; a word found in more than `rareShare` of them is too frequent for its trigram index to
 * help. Tests shrink these to reach every plan with a few rows, and `observe` sees each plan chosen.
 */
export const searchTuning: {
  walkRows: number;
  walkNeedMax: number;
  sampleRows: number;
  rareShare: number;
  observe?: (plan: SearchPlan['kind']) => void;
} = { walkRows: 500, walkNeedMax: 200, sampleRows: 200, rareShare: 0.05 };
/** At most this many words of a search term are sampled to find its rarest one. */
const SEARCH_PARTS_MAX = 4;

type Row = EntryRow & { page_key: string };

/**
 * The words of a search term the trigram index can look up (3+ letters or digits, pg_trgm's
 * words), longest first. Each is a substring of the term, so every row matching the term matches
 * each word: a word narrows the candidates, the whole term is still tested on each of them.
 */
export function searchParts(term: string): string[] {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const run of term.split(/[^\p{L}\p{N}]+/u)) {
    if ([...run].length < 3 || seen.has(run.toLowerCase())) continue;
    seen.add(run.toLowerCase());
    parts.push(run);
  }
  return parts.sort((a, b) => b.length - a.length).slice(0, SEARCH_PARTS_MAX);
}

/** What a cursor is bound to: the workspace, every filter and the sort (not the page size). */
function listIdentity(q: ListEntriesQuery): string {
  return listScope({
    w: q.workspaceId,
    p: q.projectId ?? null,
    t: q.tagIds ? [...new Set(q.tagIds)].sort((a, b) => a - b) : null,
    et: q.entryType ?? null,
    es: q.entryStatus ?? null,
    fd: q.fromDate ?? null,
    td: q.toDate ?? null,
    pa: q.partyId ?? null,
    amin: q.amountMin ?? null,
    amax: q.amountMax ?? null,
    s: q.search ?? null,
    r: q.isReconciled ?? null,
    sb: q.sortBy,
    so: q.sortOrder,
  });
}

/** One statement's WHERE clause and parameters for a list: its filters, optionally the search and the keyset. */
type Statement = { where: string; orderBy: string; params: unknown[]; p: (v: unknown) => string };

/**
 * `GET /entries`: offset pages (CONTRACT §3) and keyset cursor pages (§18). Every page is read
 * one row past its end; when that row exists, `nextCursor` names the page's last row, and the
 * next page continues strictly after it in the order `<sort column> <dir>, id <dir>`, so entries
 * inserted or changed meanwhile never make it skip or repeat a row that stayed in place.
 */
export async function listEntries(actor: Actor, q: ListEntriesQuery): Promise<EntryPage> {
  const reach = scope.workspaceReach(actor, q.workspaceId);
  const identity = listIdentity(q);
  const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor, identity);
  const keyColumn = SORT_COLUMNS[q.sortBy];
  const dir = q.sortOrder === 'ASC' ? 'ASC' : 'DESC';
  /** the list's filters (`search`: with the search term; `keyset`: only rows after the cursor) */
  const statement = (opts: { search: boolean; keyset: boolean }): Statement => {
    const { where, orderBy, params } = entryFilterSql(q, reach, { search: false });
    const p = (v: unknown) => {
      params.push(v);
      return `$${params.length}`;
    };
    const clauses = [where];
    if (opts.search && q.search) clauses.push(searchMatch(p(likePattern(q.search))));
    if (opts.keyset && after) {
      const op = dir === 'DESC' ? '<' : '>';
      clauses.push(`(${keyColumn}, e.id) ${op} (${p(after.key)}::${SORT_TYPES[q.sortBy]}, ${p(after.id)}::bigint)`);
    }
    return { where: clauses.join(' AND '), orderBy, params, p };
  };
  /** `entries e`, or (trigram plan) only the rows containing a rare word of the search */
  const source = (s: Statement, part: string | undefined) =>
    // OFFSET 0 keeps the planner from folding the whole term (and its frequent trigrams) into that index scan
    part === undefined
      ? 'entries e'
      : `(SELECT e.* FROM entries e WHERE e.workspace_id = ${s.p(q.workspaceId)} AND ${searchMatch(s.p(likePattern(part)))} OFFSET 0) e`;
  const totalOf = (part: string | undefined) => {
    const s = statement({ search: true, keyset: false });
    const from = source(s, part);
    return listTotals.total(q.workspaceId, s.where, s.params, from);
  };

  const plan = q.search ? await searchPlan(q, statement({ search: false, keyset: true }), keyColumn, dir) : undefined;
  if (plan) searchTuning.observe?.(plan.kind);
  let rows: Row[];
  let total: number;
  if (plan?.kind === 'walked') {
    [rows, total] = await Promise.all([
      plan.ids.length
        ? db().query<Row>(
            `SELECT e.*, ${keyColumn}::text AS page_key FROM entries e WHERE e.workspace_id = $1 AND e.id = ANY($2::bigint[]) ORDER BY ${SORT_COLUMNS[q.sortBy]} ${dir}, e.id ${dir}`,
            { bind: [q.workspaceId, plan.ids], type: QueryTypes.SELECT },
          )
        : Promise.resolve([]),
      totalOf(undefined),
    ]);
  } else {
    const part = plan?.kind === 'trigram' ? plan.part : undefined;
    const s = statement({ search: true, keyset: true });
    const from = source(s, part);
    const sql = `SELECT e.*, ${keyColumn}::text AS page_key FROM entries e
       JOIN (SELECT e.id FROM ${from} WHERE ${s.where} ORDER BY ${s.orderBy} LIMIT ${s.p(q.limit + 1)} OFFSET ${s.p(q.offset)}) page ON page.id = e.id
      ORDER BY ${s.orderBy}`;
    [rows, total] = await Promise.all([db().query<Row>(sql, { bind: s.params, type: QueryTypes.SELECT }), totalOf(part)]);
  }
  const items = rows.slice(0, q.limit);
  const last = items[items.length - 1];
  const nextCursor = rows.length > q.limit && last ? encodeCursor(identity, { key: last.page_key, id: Number(last.id) }) : null;
  return { items: items.map(presentEntry), total, limit: q.limit, offset: q.offset, nextCursor };
}

type SearchPlan =
  /** the page's ids (up to limit + 1), found while walking the sort order */
  | { kind: 'walked'; ids: number[] }
  /** narrow the rows through the trigram index of this word of the term */
  | { kind: 'trigram'; part: string }
  /** leave it to the planner (no word the index can use, or every word frequent) */
  | { kind: 'plain' };

/**
 * The search test on rows that never come from an index (the walk, the sample). ILIKE lower-cases
 * the text and the pattern on every row (multibyte encodings; like.c): this is the same test with
 * the pattern's lower() folded into a constant once, which halves its cost.
 */
const lowerMatch = (pattern: string, row: string) =>
  `(lower(${row}.description) LIKE lower(${pattern}) OR lower(${row}.reference) LIKE lower(${pattern}))`;

/**
 * Chooses how a search is run (ILIKE costs a few microseconds a row, so every step is bounded):
 * 1. walk the list's sort order (its index; the page's keyset included) over at most
 *    `walkRows` rows passing the other filters, stopping at the page's last row: when the walk
 *    holds the page (a frequent term, or the list ends within it), the page is those rows, the
 *    first matches in the sort order;
 * 2. otherwise the first `sampleRows` rows tell which word of the term is rarest, and the page is
 *    read through that word's trigram index (a rare term).
 * `s` holds the filters without the search, with the keyset.
 */
async function searchPlan(q: ListEntriesQuery, s: Statement, keyColumn: string, dir: 'ASC' | 'DESC'): Promise<SearchPlan> {
  const parts = searchParts(q.search ?? '');
  const need = q.offset + q.limit + 1;
  const walkServes = need <= searchTuning.walkNeedMax;
  if (!walkServes && parts.length === 0) return { kind: 'plain' };
  const walk = s.p(searchTuning.walkRows);
  const needParam = s.p(need);
  // the walk is not MATERIALIZED: it is pulled row by row and stops at the page's last match
  const walked = walkServes
    ? `(SELECT count(*) FROM (SELECT 1 FROM entries e WHERE ${s.where} ORDER BY ${s.orderBy} LIMIT ${walk}) x)::int`
    : '0';
  const ids = walkServes
    ? `(SELECT array_agg(h.id ORDER BY h.k ${dir}, h.id ${dir}) FROM (
         SELECT w.id, w.k FROM (SELECT e.id, ${keyColumn} AS k, e.description, e.reference FROM entries e WHERE ${s.where} ORDER BY ${s.orderBy} LIMIT ${walk}) w
          WHERE ${lowerMatch(s.p(likePattern(q.search ?? '')), 'w')} ORDER BY w.k ${dir}, w.id ${dir} LIMIT ${needParam}) h)`
    : 'NULL::bigint[]';
  const partParams = parts.map((part) => s.p(likePattern(part)));
  // the sample runs only when the walk did not hold the page (a CASE evaluates its subquery lazily)
  const sample = parts.length
    ? `CASE WHEN NOT (${walkServes} AND (coalesce(cardinality(p.ids), 0) >= ${needParam} OR p.walked < ${walk})) THEN
         (SELECT ARRAY[count(*)${partParams.map((part) => `, count(*) FILTER (WHERE ${lowerMatch(part, 'w')})`).join('')}]::int[]
            FROM (SELECT e.description, e.reference FROM entries e WHERE ${s.where} ORDER BY ${s.orderBy} LIMIT ${s.p(searchTuning.sampleRows)}) w)
       END`
    : 'NULL::int[]';
  const [probe] = await db().query<{ walked: number; ids: (string | number)[] | null; sample: number[] | null }>(
    `SELECT p.walked, p.ids, ${sample} AS sample FROM (SELECT ${walked} AS walked, ${ids} AS ids OFFSET 0) p`,
    { bind: s.params, type: QueryTypes.SELECT },
  );
  const found = (probe.ids ?? []).map(Number);
  if (walkServes && (found.length >= need || probe.walked < searchTuning.walkRows))
    return { kind: 'walked', ids: found.slice(q.offset, need) };
  if (!probe.sample) return { kind: 'plain' };
  const [sampled, ...hits] = probe.sample.map(Number);
  const rarest = hits.indexOf(Math.min(...hits));
  if (hits[rarest] > searchTuning.rareShare * sampled) return { kind: 'plain' };
  return { kind: 'trigram', part: parts[rarest] };
}
