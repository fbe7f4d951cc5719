/** Load generators: autocannon against the HTTP server, and the same loop shape against pg directly. */
import autocannon from 'autocannon';

export type LoadResult = { requests: number; seconds: number; perSecond: number; p50: number; p95: number; p99: number; errors: number };

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function summarize(latenciesMs: number[], seconds: number, errors = 0): LoadResult {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  return {
    requests: sorted.length,
    seconds,
    perSecond: sorted.length / seconds,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    errors,
  };
}

export type CannonOptions = {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** a fresh path (with query) per request, e.g. a random entry id */
  pathFor?: () => string;
  seconds: number;
  connections: number;
};

/** Runs autocannon for `seconds` and returns throughput and per-response latency percentiles. */
export async function cannon(o: CannonOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const started = performance.now();
  const instance = autocannon({
    url: o.url,
    method: o.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...o.headers },
    body: o.body,
    duration: o.seconds,
    connections: o.connections,
    requests: o.pathFor ? [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, path: o.pathFor!() }) }] : undefined,
  });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => latencies.push(responseTime));
  const result = await instance;
  const seconds = (performance.now() - started) / 1000;
  return summarize(latencies, seconds, result.non2xx + result.errors + result.timeouts);
}

/** `concurrency` workers call `fn` back to back for `seconds`; the pg-side twin of `cannon`. */
export async function loop(seconds: number, concurrency: number, fn: () => Promise<unknown>): Promise<LoadResult> {
  const latencies: number[] = [];
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        await fn();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return summarize(latencies, (performance.now() - started) / 1000);
}

/** Runs `fn` `runs` times one after the other; latencies are the wall times in ms. */
export async function repeat(runs: number, fn: () => Promise<unknown>): Promise<LoadResult> {
  const latencies: number[] = [];
  const started = performance.now();
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    latencies.push(performance.now() - t0);
  }
  return summarize(latencies, (performance.now() - started) / 1000);
}
