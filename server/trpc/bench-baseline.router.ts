import { z } from 'zod/v4';
import { benchBaselineRequested } from '../config.js';
import { router } from './init.js';
import { op, publicProcedure } from './procedures.js';

/**
 * The benchmark's baseline (bench/run.ts): trivial procedures on the same express + tRPC +
 * trpc-to-openapi stack, returning a constant object. Mounted only when BENCH_BASELINE=1,
 * so the OpenAPI document of a normal start does not contain them. Not a domain: the transport's own yardstick.
 */
const benchBaselineEnabled = benchBaselineRequested();

const TAG = 'Bench';
const Pong = z.object({ ok: z.boolean(), name: z.string() });
const PONG = { ok: true, name: 'bench' };

export const benchRouter = router({
  ping: publicProcedure
    .meta(op('GET', '/bench/ping', 'benchPing', TAG, 'Constant object (benchmark baseline)', [], { protect: false }))
    .input(z.object({}))
    .output(Pong)
    .query(() => PONG),
  pingMutation: publicProcedure
    .meta(
      op('POST', '/bench/ping', 'benchPingMutation', TAG, 'Constant object, as a mutation (benchmark baseline)', [], { protect: false }),
    )
    .input(z.object({}).passthrough())
    .output(Pong)
    .mutation(() => PONG),
});

const withBench = { bench: benchRouter };

/** Spread into the app router: `{ bench }` under BENCH_BASELINE=1, nothing otherwise (not part of the typed API). */
export function benchBaselineRouters(): Record<never, never> {
  return benchBaselineEnabled ? withBench : {};
}
