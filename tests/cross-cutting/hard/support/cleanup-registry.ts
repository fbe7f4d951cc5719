/**
 * The cleanup registry without a test runner's hooks, so that a global setup can use what registers
 * into it (the Citus cluster of `TEST_CITUS=1 npm test`); cleanup.ts runs it after each hard-suite file.
 */
type Cleanup = { name: string; run: () => Promise<void> | void; sync?: () => void };
const cleanups: Cleanup[] = [];

process.once('exit', () => {
  for (const c of cleanups.splice(0).reverse()) c.sync?.();
});

/**
 * Registers work for the end of the file (children to kill, clusters to stop, dirs to remove).
 * Runs in afterAll even when a test failed, newest first, each on its own (one failing does
 * not skip the rest); `sync` runs instead on process exit, for a worker torn down abruptly.
 */
export function onCleanup(name: string, run: () => Promise<void> | void, sync?: () => void): void {
  cleanups.push({ name, run, sync });
}

export async function runCleanups(): Promise<void> {
  const errors: string[] = [];
  for (const c of cleanups.splice(0).reverse()) {
    try {
      await c.run();
    } catch (err) {
      errors.push(`${c.name}: ${String(err)}`);
    }
  }
  if (errors.length) process.stderr.write(`hard-suite cleanup problems:\n  ${errors.join('\n  ')}\n`);
}

/** Polls `probe` until it returns a value (not undefined) or `timeoutMs` passes. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
