import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * DESIGN §2a, held by the suite (issue 28): (1) no SQL outside server/domains/entries/ writes or locks the ledger's
 * tables (entries, entry_links, entry_tags, entry_events) — other domains lock through `ledger.lockMany` and write
 * through the core; (2) the domains form no cycle as folders (entries is imported, it does not import the domains
 * that react to it). The same rules as ../shared/tools/ledger-writes.mjs and domain-graph.mjs, a little stricter
 * (a lock whose SQL is split over string pieces is found too), each shown to fail on a fixture.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const serverDir = path.join(root, 'server');
const coreDir = path.join(serverDir, 'domains', 'entries') + path.sep;
const migrationsDir = path.join(serverDir, 'db', 'migrations') + path.sep;
const domainsDir = path.join(serverDir, 'domains') + path.sep;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.ts$/.test(e.name) && !/\.d\.ts$/.test(e.name) ? [p] : [];
  });
}

const TABLES = '(entries|entry_links|entry_tags|entry_events)\\b';
const WRITE = new RegExp(`\\b(INSERT\\s+INTO|UPDATE|DELETE\\s+FROM|TRUNCATE(\\s+TABLE)?)\\s+(ONLY\\s+)?${TABLES}`, 'gi');
/** a read of a ledger table that locks its rows, also when the lock clause is another string piece a few lines on */
const LOCK = new RegExp(`\\bFROM\\s+${TABLES}[^;]{0,600}?\\bFOR\\s+(NO\\s+KEY\\s+UPDATE|UPDATE|SHARE|KEY\\s+SHARE)\\b`, 'gis');

/** The ledger writes and locks in `src` (the fragments found). */
export function ledgerWrites(src: string): string[] {
  return [...src.matchAll(WRITE), ...src.matchAll(LOCK)].map((m) => m[0].replace(/\s+/g, ' ').slice(0, 90));
}

function writesOutsideCore(): string[] {
  return sources(serverDir)
    .filter((f) => !f.startsWith(coreDir) && !f.startsWith(migrationsDir))
    .flatMap((f) => ledgerWrites(fs.readFileSync(f, 'utf8')).map((w) => `${path.relative(root, f)}: ${w}`));
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function domainOf(file: string): string | null {
  if (!file.startsWith(domainsDir)) return null;
  const parts = file.slice(domainsDir.length).split(path.sep);
  return parts.length > 1 ? parts[0] : null; // files directly under domains/ (reactions.ts) are wiring, not a domain
}

/** domain → the domains its files import (type-only imports included: a folder that names another depends on it). */
export function domainEdges(files: { file: string; src: string }[]): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const { file, src } of files) {
    const from = domainOf(file);
    if (!from) continue;
    for (const m of src.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (!spec.startsWith('.')) continue;
      const to = domainOf(path.resolve(path.dirname(file), spec));
      if (to && to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  return edges;
}

/** The cycles of the graph: its strongly connected components of more than one domain. */
export function cycles(edges: Map<string, Set<string>>): string[][] {
  const nodes = new Set([...edges.keys(), ...[...edges.values()].flatMap((s) => [...s])]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return found;
}

const serverFiles = () => sources(serverDir).map((file) => ({ file, src: fs.readFileSync(file, 'utf8') }));

describe('the ledger core is the only writer of the ledger tables (DESIGN §2a)', () => {
  it('no SQL outside server/domains/entries/ writes or locks entries, entry_links, entry_tags or entry_events', () => {
    expect(writesOutsideCore()).toEqual([]);
  });

  it('has ONE insert path for entries: one INSERT INTO entries in server/, in entries/entry-writes.ts', () => {
    const inserts = sources(serverDir)
      .filter((f) => !f.startsWith(migrationsDir))
      .flatMap((f) => [...fs.readFileSync(f, 'utf8').matchAll(/\bINSERT\s+INTO\s+entries\b/gi)].map(() => path.relative(root, f)));
    expect(inserts).toEqual(['server/domains/entries/entry-writes.ts']);
  });

  it('finds each kind of write and lock (the check can fail)', () => {
    expect(ledgerWrites("db().query('UPDATE entries SET amount_cents = 1 WHERE id = $1')")).toHaveLength(1);
    expect(ledgerWrites('INSERT INTO entry_events (id) VALUES ($1)')).toHaveLength(1);
    expect(ledgerWrites('DELETE FROM entry_tags WHERE entry_id = :id')).toHaveLength(1);
    expect(ledgerWrites("db().query('SELECT id FROM entries WHERE id = ANY($1) ORDER BY id FOR UPDATE')")).toHaveLength(1);
    expect(ledgerWrites("`SELECT e.id FROM entries e WHERE e.id = $1 ${only ? 'ORDER BY e.id FOR UPDATE OF e' : ''}`")).toHaveLength(1);
    expect(ledgerWrites('SELECT * FROM entries e JOIN parties p ON p.id = e.from_party_id FOR NO KEY UPDATE OF e')).toHaveLength(1);
    // reads, and writes of other tables, are not ledger writes
    expect(ledgerWrites("SELECT * FROM entries WHERE id = $1; UPDATE accounting_syncs SET status = 'STALE' FOR UPDATE")).toEqual([]);
    expect(ledgerWrites('UPDATE entries_archive SET x = 1')).toEqual([]);
  });
});

describe('the domains form no cycle as folders (DESIGN §2a)', () => {
  it('server/domains has no domain cycle', () => {
    expect(cycles(domainEdges(serverFiles()))).toEqual([]);
  });

  it('finds a cycle an import would close (the check can fail): outbound-webhooks importing entries back', () => {
    const fixture = {
      file: path.join(domainsDir, 'outbound-webhooks', 'cycle-fixture.ts'),
      src: "import { presentEntry } from '../entries/index.js';\nexport const x = presentEntry;\n",
    };
    // entries → outbound-webhooks directly, and through the books (the core posts, the books publish journal.posted)
    expect(cycles(domainEdges([...serverFiles(), fixture]))).toEqual([['books', 'entries', 'outbound-webhooks']]);
  });
});
