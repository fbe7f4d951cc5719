/**
 * What the set-based write path buys at the size of concurrent single creates: the ingest endpoint fed by
 * 10 clients with batches of 8 entries (one transaction and one statement per batch for the entries, their
 * events and reactions), against POST /entries one entry per request from the same 10 clients. Both in
 * entries per second, with the CPU each entry cost; neither side has rules, an endpoint or a valuation.
 * POST /entries groups concurrent creates itself (server/db/commit-group.ts), so the gap left between the two is
 * the per-request work (HTTP, auth, validation, a response per entry) and the creates that found a lane free.
 */
import { loop } from './load.js';
import { metered, type Metered } from './cpu.js';
import { plainEntryBody } from './fixtures.js';
import { createIntegration, ingestBatch, item } from './ingest-scenario.js';
import type { BenchContext } from './scenarios.js';
import { throughputRow, type ResultRow } from './table.js';

const CLIENTS = 10;
const BATCH = 8;

/** A batch run counted per entry: rate and CPU divided over the entries of each request. */
const perEntry = (m: Metered, entries: number): Metered => ({
  ...m,
  requests: m.requests * entries,
  perSecond: m.perSecond * entries,
  serverCpuMs: m.serverCpuMs / entries,
  dbCpuMs: m.dbCpuMs / entries,
});

export async function coalescingScenario(c: BenchContext): Promise<ResultRow> {
  const integration = await createIntegration(c);
  const run = `coalesce-${Date.now()}`;
  let n = 0;
  const failed = { batched: 0, single: 0 };
  const ingest = () =>
    ingestBatch(
      c,
      integration.apiKey,
      Array.from({ length: BATCH }, () => item(run, n++, c.writes.projectId)),
    ).catch(() => void failed.batched++);
  const single = plainEntryBody(c.writes.projectId, 'Bench POST /entries (one by one)', 'BENCH-ONE');
  const post = async () => {
    const res = await fetch(`${c.server.base}/entries`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', authorization: `Bearer ${c.token}` },
      body: single,
    });
    await res.arrayBuffer();
    if (res.status !== 200) failed.single++;
  };
  await loop(c.settings.warmupSeconds, CLIENTS, ingest);
  await loop(c.settings.warmupSeconds, CLIENTS, post);
  failed.batched = failed.single = 0;
  const batched = perEntry(await metered(c, () => loop(c.settings.seconds, CLIENTS, ingest)), BATCH);
  const oneByOne = await metered(c, () => loop(c.settings.seconds, CLIENTS, post));
  return throughputRow(
    `ingest in batches of ${BATCH} vs POST /entries one by one, ${CLIENTS} clients`,
    { ...batched, errors: failed.batched },
    { ...oneByOne, errors: failed.single },
    NaN,
    0,
    [`what coalescing concurrent creates into set-based statements could reach; latencies are per request (${BATCH} entries or 1)`],
    { unit: 'entries/s', target: '(headroom, no target)', sides: [`batches of ${BATCH}`, 'one by one'] },
  );
}
