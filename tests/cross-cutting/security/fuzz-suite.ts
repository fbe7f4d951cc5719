import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtime } from '../../../server/runtime.js';
import { scannedResponses, startServer } from '../../support/http.js';
import { failureReport, fuzzOperation, fuzzSeed, type OpResult } from './fuzz-engine.js';
import { loadOperations } from './fuzz-operations.js';
import { specialRequests } from './fuzz-requests.js';
import { buildFuzzWorld, type FuzzWorld } from './fuzz-world.js';

/**
 * The OpenAPI-driven fuzz suite, shared by `npm test` (few runs per operation) and
 * `npm run test:hard` (1,000 per operation): one test per operation of openapi.json.
 */
export function defineFuzzSuite(runsPerOp: number, opts: { asApiKey?: boolean } = {}): void {
  const operations = loadOperations();
  const results: OpResult[] = [];
  let world: FuzzWorld;
  let started = 0;

  const serverErrors: string[] = [];
  beforeAll(async () => {
    world = await buildFuzzWorld(await startServer());
    // as an app (CONTRACT §19): every bearer-protected operation is sent with the workspace's API key
    if (opts.asApiKey) world = { ...world, token: world.appKey, logoutToken: world.appKey };
    // the service logs each 500 with its cause: keep them for the failure message
    const logger = runtime().logger;
    const error = logger.error.bind(logger);
    logger.error = ((obj: unknown, ...rest: unknown[]) => {
      const err = (obj as { err?: Error & { parent?: { code?: string; message?: string }; sql?: string } })?.err;
      const db = err?.parent ? ` [pg ${err.parent.code}: ${err.parent.message}] ${err.sql?.slice(0, 300)}` : '';
      serverErrors.push(`${err?.stack?.split('\n').slice(0, 4).join(' | ') ?? JSON.stringify(obj).slice(0, 300)}${db}`);
      return (error as (...a: unknown[]) => void)(obj, ...rest);
    }) as typeof logger.error;
    started = Date.now();
  }, 120_000);

  afterAll(() => {
    const sent = results.reduce((n, r) => n + r.sent, 0);
    const ms = Date.now() - started;
    const statuses: Record<number, number> = {};
    for (const r of results) for (const [s, n] of Object.entries(r.byStatus)) statuses[Number(s)] = (statuses[Number(s)] ?? 0) + n;
    console.log(
      `fuzz: seed ${fuzzSeed()}, ${results.length} operations, ${sent} requests (min ${Math.min(...results.map((r) => r.sent))} per operation) ` +
        `in ${(ms / 1000).toFixed(1)} s = ${Math.round(sent / (ms / 1000))} req/s; ` +
        `failures ${results.reduce((n, r) => n + r.failures.length, 0)}; statuses ${JSON.stringify(statuses)}; ` +
        `responses secret-scanned ${scannedResponses()}`,
    );
    const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, 8);
    console.log(`fuzz: slowest ${slowest.map((r) => `${r.op} ${(r.ms / 1000).toFixed(1)}s`).join('; ')}`);
  });

  it('covers every operation of openapi.json', () => {
    expect(operations.length).toBeGreaterThanOrEqual(100);
    expect(new Set(operations.map((o) => `${o.method} ${o.path}`)).size).toBe(operations.length);
  });

  describe.each(operations.map((op) => ({ op, name: `${op.method} ${op.path}` })))('$name', ({ op }) => {
    it(`${runsPerOp} fuzzed requests: no 5xx, contract error bodies, no internals`, async () => {
      const result = await fuzzOperation(world, op, runsPerOp);
      results.push(result);
      // the special requests all go, even where they outnumber the runs (an operation with many query parameters)
      expect(result.sent).toBe(Math.max(runsPerOp, specialRequests(op, world).length));
      const logged = [...new Set(serverErrors.splice(0))].slice(0, 3);
      if (result.failures.length) throw new Error(`${failureReport(result)}\nserver log: ${logged.join('\n  ')}`);
    });
  });

  it('no request polluted Object.prototype in the server process', () => {
    const probe: Record<string, unknown> = {};
    expect(probe.isAdmin).toBeUndefined();
    expect(probe.polluted).toBeUndefined();
  });
}
