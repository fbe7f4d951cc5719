import { AsyncResource } from 'node:async_hooks';
import { recordCommitGroup } from '../lib/metrics.js';
import { db, inPreview, runFirstTransactionHook, transaction, type Transaction } from './database.js';

type Waiting = {
  /** the work inside a shared transaction, in the caller's own async context (its request, via, idempotency hook) */
  inGroup: (tx: Transaction) => Promise<unknown>;
  /** the work in a transaction of its own, as without grouping */
  alone: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
  ranHook?: { done: boolean };
};

export type CommitGroupOptions = {
  /** the name its metrics carry (commit_group_transactions_total{group}) */
  name: string;
  /** how many transactions may be in flight at once */
  lanes: number;
  /** the most pieces of work one shared transaction carries */
  maxItems: number;
};

/**
 * Group commit (issue 35): pieces of work that arrive while every lane has a transaction in flight
 * wait, and the next free lane runs all that waited (up to maxItems) one after another in ONE
 * transaction, so they share its BEGIN, its COMMIT and its WAL flush. Work that arrives while a
 * lane is free runs alone, exactly as `transaction()` would: under one client nothing changes.
 *
 * Each piece keeps its own outcome. Its result is handed back only after the shared COMMIT. When
 * any piece throws (a 400, a 409, a lost race) or the COMMIT fails, nothing of the group has
 * committed: the transaction is rolled back and every piece runs again alone, so the bad one gets
 * its own error and the others their own results. A preview (CONTRACT §20) is never grouped.
 */
export class CommitGroup {
  private readonly waiting: Waiting[] = [];
  private inFlight = 0;
  /** how many shared transactions committed, and the largest (tests and the bench read these) */
  readonly stats = { groups: 0, largest: 0, fallbacks: 0 };

  constructor(private readonly options: CommitGroupOptions) {}

  /** how many pieces of work wait for a lane */
  get queued(): number {
    return this.waiting.length;
  }

  /** how many lanes have a transaction in flight */
  get busyLanes(): number {
    return this.inFlight;
  }

  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    if (inPreview()) return transaction(work);
    return new Promise<T>((resolve, reject) => {
      const item: Waiting = {
        inGroup: AsyncResource.bind(async (tx: Transaction) => {
          item.ranHook = await runFirstTransactionHook(tx);
          return work(tx);
        }),
        alone: AsyncResource.bind(() => transaction(work)),
        resolve: resolve as (value: unknown) => void,
        reject,
      };
      this.waiting.push(item);
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.options.lanes && this.waiting.length > 0) {
      const items = this.waiting.splice(0, this.options.maxItems);
      this.inFlight++;
      void this.runGroup(items).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async runGroup(items: Waiting[]): Promise<void> {
    if (items.length === 1) return settle(items[0]);
    const results: unknown[] = [];
    try {
      await db().transaction(async (tx) => {
        for (const item of items) results.push(await item.inGroup(tx));
      });
    } catch {
      this.stats.fallbacks++;
      recordCommitGroup(this.options.name, 'fallback', items.length);
      for (const item of items) if (item.ranHook) item.ranHook.done = false;
      await Promise.all(items.map(settle));
      return;
    }
    this.stats.groups++;
    recordCommitGroup(this.options.name, 'committed', items.length);
    this.stats.largest = Math.max(this.stats.largest, items.length);
    items.forEach((item, i) => item.resolve(results[i]));
  }
}

async function settle(item: Waiting): Promise<void> {
  item.ranHook = undefined;
  try {
    item.resolve(await item.alone());
  } catch (err) {
    item.reject(err);
  }
}
