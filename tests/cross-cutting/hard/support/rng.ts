/** A seeded PRNG (mulberry32), so a failing randomized trial can be replayed with HARD_SEED=<seed>. */
export type Rng = { seed: number; next: () => number; int: (min: number, max: number) => number; pick: <T>(xs: readonly T[]) => T };

export function seededRng(label: string): Rng {
  const fromEnv = Number(process.env.HARD_SEED);
  const seed = Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : Math.floor(Math.random() * 2 ** 31);
  process.stdout.write(`[${label}] seed ${seed} (replay with HARD_SEED=${seed})\n`);
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return { seed, next, int, pick: (xs) => xs[int(0, xs.length - 1)]! };
}
