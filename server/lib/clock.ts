/** The service's notion of "now". Tests replace it to prove time rules at their edges. */
let nowFn: () => Date = () => new Date();

export const clock = {
  now: (): Date => nowFn(),
  nowSeconds: (): number => Math.floor(nowFn().getTime() / 1000),
  set(fn: () => Date): void {
    nowFn = fn;
  },
  reset(): void {
    nowFn = () => new Date();
  },
};
