import type { Transaction } from '../../db/database.js';

/**
 * How a committed delivery reaches a worker (CONTRACT §15: out within seconds of the commit). The
 * transaction that writes deliveries wakes the workers of its own process once it commits; workers
 * of other processes (other instances) find them at their next poll (`pollMs`, 1 s). A NOTIFY per
 * committing transaction did the same across processes, and cost every create that has an endpoint
 * ≈ 0.3 ms of PostgreSQL CPU (the notification queue's lock and a wake-up of every listener) —
 * measured with the bench's POST scenario (issue 23); migration 0022 drops it.
 */
const workers = new Set<() => void>();
const registered = new WeakSet<Transaction>();

/** A worker of this process: `wake` runs after every commit that wrote deliveries. Returns the unregister. */
export function onDeliveriesCommitted(wake: () => void): () => void {
  workers.add(wake);
  return () => workers.delete(wake);
}

/** `tx` writes (or may write) deliveries: this process's workers look for them once it commits. */
export function wakeWorkersAfterCommit(tx: Transaction): void {
  if (registered.has(tx)) return;
  registered.add(tx);
  tx.afterCommit(() => {
    for (const wake of workers) wake();
  });
}
