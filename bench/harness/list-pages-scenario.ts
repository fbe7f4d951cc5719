/**
 * Issue 23 items 3 and 4: cursor pages at depth (CONTRACT §18) and search with a rare and a
 * frequent term, p95 ≤ 50 ms each. The cursor page's baseline is the offset page at the same depth
 * through the same server; a search's baseline is the former statements (one page query with the
 * ILIKE in its WHERE and an uncached count, as before issue 23) replayed on the bench database.
 */
import type pg from 'pg';
import { entryFilterSql } from '../../server/domains/entries/entry-filters.js';
import { entryPageSql } from '../../server/domains/entries/list.service.js';
import { ListEntriesQuery } from '../../shared/contracts/entries.js';
import { metered } from './cpu.js';
import { cannon, loop } from './load.js';
import type { BenchContext } from './scenarios.js';
import { listLatencyRow, type ResultRow } from './table.js';

const CONNECTIONS = 10;
const LIMIT = 20;

const cpuNote = (o: { serverCpuMs: number; dbCpuMs: number }, b?: { serverCpuMs: number; dbCpuMs: number }) =>
  `CPU/request ours ${o.serverCpuMs.toFixed(2)} ms server + ${o.dbCpuMs.toFixed(2)} ms PostgreSQL` +
  (b ? `, baseline ${b.serverCpuMs.toFixed(2)} + ${b.dbCpuMs.toFixed(2)}` : '');

async function getJson(c: BenchContext, path: string): Promise<any> {
  const res = await fetch(new URL(path, c.server.base), { headers: { authorization: `Bearer ${c.token}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** The cursor of the page starting at `depth` (the nextCursor of the one-row page just before it). */
async function cursorAt(c: BenchContext, depth: number): Promise<string> {
  const page = await getJson(c, `/entries?workspaceId=${c.dataset.workspaceId}&limit=1&offset=${depth - 1}`);
  if (typeof page.nextCursor !== 'string') throw new Error(`no nextCursor at depth ${depth}`);
  return page.nextCursor;
}

async function cursorDepth(c: BenchContext): Promise<ResultRow> {
  const depth = Math.floor(c.dataset.entries / 2);
  const cursor = await cursorAt(c, depth);
  const auth = { authorization: `Bearer ${c.token}` };
  const ws = c.dataset.workspaceId;
  const cursorUrl = `${c.server.base}/entries?workspaceId=${ws}&limit=${LIMIT}&cursor=${encodeURIComponent(cursor)}`;
  const offsetUrl = `${c.server.base}/entries?workspaceId=${ws}&limit=${LIMIT}&offset=${depth}`;
  // the same rows both ways (a wrong cursor page would make a fast, useless number)
  const [a, b] = await Promise.all([getJson(c, cursorUrl), getJson(c, offsetUrl)]);
  if (JSON.stringify(a.items.map((e: { id: number }) => e.id)) !== JSON.stringify(b.items.map((e: { id: number }) => e.id))) {
    throw new Error('cursor page and offset page at the same depth differ');
  }
  await cannon({ url: cursorUrl, headers: auth, seconds: c.settings.warmupSeconds, connections: CONNECTIONS });
  const peak = c.server.watchRss();
  const ours = await metered(c, () => cannon({ url: cursorUrl, headers: auth, seconds: c.settings.listSeconds, connections: CONNECTIONS }));
  const peakRss = peak();
  const base = await metered(c, () => cannon({ url: offsetUrl, headers: auth, seconds: c.settings.listSeconds, connections: CONNECTIONS }));
  return listLatencyRow(
    `GET /entries: cursor page at depth ${depth.toLocaleString('en-US')} (baseline: offset page, same depth)`,
    ours,
    base,
    peakRss,
    [cpuNote(ours, base)],
  );
}

async function search(c: BenchContext, pool: pg.Pool, kind: string, term: string): Promise<ResultRow> {
  const raw = { workspaceId: c.dataset.workspaceId, limit: LIMIT, search: term };
  const q = ListEntriesQuery.parse(raw);
  const qs = new URLSearchParams({ workspaceId: String(raw.workspaceId), limit: String(LIMIT), search: term }).toString();
  const { where, orderBy, params } = entryFilterSql(q, { workspaceId: q.workspaceId, all: true });
  const n = params.length;
  const rowsSql = entryPageSql(where, orderBy, `$${n + 1}`, `$${n + 2}`);
  const countSql = `SELECT count(*)::bigint AS total FROM entries e WHERE ${where}`;
  const url = `${c.server.base}/entries?${qs}`;
  const auth = { authorization: `Bearer ${c.token}` };
  const first = await getJson(c, `/entries?${qs}`); // warm-up (and the total's first count), not counted
  const peak = c.server.watchRss();
  const ours = await metered(c, () => cannon({ url, headers: auth, seconds: c.settings.listSeconds, connections: CONNECTIONS }));
  const peakRss = peak();
  const base = await loop(c.settings.listSeconds, CONNECTIONS, () =>
    Promise.all([pool.query(rowsSql, [...params, q.limit, q.offset]), pool.query(countSql, params)]),
  );
  return listLatencyRow(
    `GET /entries: search ${kind} term "${term}" (${Number(first.total).toLocaleString('en-US')} matches; baseline: former SQL)`,
    ours,
    base,
    peakRss,
    [cpuNote(ours)],
  );
}

/** The scenarios of this module, each as a named step (bench/harness/scenarios.ts runs them). */
export function listPagesScenarios(c: BenchContext, pool: pg.Pool): { name: string; run: () => Promise<ResultRow> }[] {
  return [
    { name: 'list cursor page at depth', run: () => cursorDepth(c) },
    { name: 'list search rare term', run: () => search(c, pool, 'rare', 'entry 4242') },
    { name: 'list search frequent term', run: () => search(c, pool, 'frequent', 'entry') },
  ];
}
