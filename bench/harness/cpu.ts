/** CPU accounting of a load: the server process and the bench PostgreSQL (postmaster and backends). */
import type { LoadResult } from './load.js';
import type { BenchContext } from './scenarios.js';
import { cpuSecondsBetween, cpuSecondsByPid } from './server-process.js';

export type Metered = LoadResult & { serverCpuMs: number; dbCpuMs: number };

/** Runs a load and charges the CPU the server and PostgreSQL used to its requests. */
export async function metered(c: BenchContext, run: () => Promise<LoadResult>): Promise<Metered> {
  const { server, postgresPid } = c;
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
