/** CSV export of the whole workspace vs COPY (same rows) TO STDOUT, with the server's RSS growth. */
import { inlineParameters } from '../../server/db/copy-out.js';
import { entryFilterSql } from '../../server/domains/entries/entry-filters.js';
import { EntryFilters } from '../../shared/contracts/entries.js';
import { copyOut } from './copy.js';
import type { BenchContext } from './scenarios.js';
import { cpuOf, type ResultRow } from './table.js';
import { summarize } from './load.js';
import { metered } from './cpu.js';

/** The export's rows as plain columns (server/domains/entries/export.service.ts), its parameters inlined for COPY as the service does. */
function exportSelect(workspaceId: number): string {
  const { where, orderBy, params } = entryFilterSql(EntryFilters.parse({ workspaceId }), { workspaceId, all: true });
  const sql = `SELECT e.id::text, e.entry_date::text, e.entry_type, e.entry_status, e.amount_cents::text, e.base_currency, e.description, e.reference,
                      fp.name AS from_party, tp.name AS to_party, e.is_reconciled,
                      (SELECT string_agg(t.name, '; ' ORDER BY t.name) FROM entry_tags et JOIN tags t ON t.id = et.tag_id WHERE et.entry_id = e.id) AS tags
                 FROM entries e
                 LEFT JOIN parties fp ON fp.id = e.from_party_id
                 LEFT JOIN parties tp ON tp.id = e.to_party_id
                WHERE ${where} ORDER BY ${orderBy}`;
  return inlineParameters(sql, params);
}

export async function exportScenario(c: BenchContext): Promise<ResultRow> {
  const rssBefore = c.server.rssMB();
  const peak = c.server.watchRss();
  const started = performance.now();
  let bytes = 0;
  let lines = 0;
  const ours = await metered(c, async () => {
    const res = await fetch(`${c.server.base}/entries/export/csv?workspaceId=${c.dataset.workspaceId}`, {
      headers: { authorization: `Bearer ${c.token}` },
    });
    if (res.status !== 200) throw new Error(`export: ${res.status} ${await res.text()}`);
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
      bytes += buf.length;
      for (let at = buf.indexOf(10); at !== -1; at = buf.indexOf(10, at + 1)) lines++;
    }
    const ms = performance.now() - started;
    return summarize([ms], ms / 1000);
  });
  const seconds = (performance.now() - started) / 1000;
  const peakRss = peak();
  const growth = peakRss - rssBefore;
  const base = await copyOut(c.url, `COPY (${exportSelect(c.dataset.workspaceId)}) TO STDOUT WITH (FORMAT csv, HEADER)`);
  const ratio = seconds / base.seconds;
  return {
    cpuPerRequest: cpuOf(ours), // the one export request
    scenario: `CSV export, ${(lines - 1).toLocaleString('en-US')} rows`,
    unit: 's',
    ours: seconds,
    baseline: base.seconds,
    ratio,
    p50: NaN,
    p95: NaN,
    p99: NaN,
    baselineP95: NaN,
    peakRssMB: peakRss,
    target: 'ratio <= 1.3, RSS +<100 MB', // issue 35: formatting in SQL, within 1.3 of COPY
    met: ratio <= 1.3 && growth < 100,
    note: `RSS ${rssBefore.toFixed(0)} -> peak ${peakRss.toFixed(0)} MB (+${growth.toFixed(0)} MB); ${(bytes / 1e6).toFixed(1)} MB ours, ${(base.bytes / 1e6).toFixed(1)} MB COPY`,
  };
}
