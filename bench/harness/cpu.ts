/** CPU accounting of a load: the server process and the bench PostgreSQL (postmaster and backends). */
import type { LoadResult } from './load.js';
import type { BenchContext } from './scenarios.js';
import { cpuSecondsBetween, cpuSecondsByPid } from './server-process.js';

export type Metered = LoadResult & { serverCpuMs: number; dbCpuMs: number };

/**
 * Runs a load and charges the CPU the server and PostgreSQL used to its requests; `server` is the
 * process that answers them (the real server unless named, e.g. the same-SQL baseline's).
 */
export async function metered(
  c: BenchContext,
  run: () => Promise<LoadResult>,
  server: { cpuSeconds: () => number } = c.server,
): Promise<Metered> {
  const { postgresPid } = c;
  const dbCpu = () => (postgresPid ? cpuSecondsByPid(postgresPid) : undefined);
  const server0 = server.cpuSeconds();
  const db0 = dbCpu();
  const result = await run();
  const db1 = dbCpu();
  const perRequest = (seconds: number) => (seconds * 1000) / Math.max(1, result.requests);
  return {
    ...result,
    serverCpuMs: perRequest(server.cpuSeconds() - server0),
    dbCpuMs: db0 && db1 ? perRequest(cpuSecondsBetween(db0, db1)) : NaN,
  };
}

/** Metered parts of one run (alternating halves) as one run: rates and CPU per request over both, the worse latency percentiles. */
export function combineRuns(runs: Metered[]): Metered {
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const seconds = runs.reduce((n, r) => n + r.seconds, 0);
  const weighted = (f: (r: Metered) => number) => runs.reduce((n, r) => n + f(r) * r.requests, 0) / Math.max(1, requests);
  const worst = (f: (r: Metered) => number) => Math.max(...runs.map(f));
  return {
    requests,
    seconds,
    perSecond: requests / seconds,
    p50: worst((r) => r.p50),
    p95: worst((r) => r.p95),
    p99: worst((r) => r.p99),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    serverCpuMs: weighted((r) => r.serverCpuMs),
    dbCpuMs: weighted((r) => r.dbCpuMs),
  };
}
