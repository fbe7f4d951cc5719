import { AsyncResource } from 'node:async_hooks';
import { recordCommitGroup } from '../lib/metrics.js';
import { runtime } from '../runtime.js';
import { db, inPreview, runFirstTransactionHook, type Transaction } from './database.js';
import { Lanes } from './lanes.js';

/** One request's part of a shared transaction, as the group writer sees it. */
export type GroupPiece<I> = {
  readonly input: I;
  /** Runs `fn` in the caller's own async context (its request, its transport for `via`). */
  inContext<T>(fn: () => T): T;
  /**
   * Runs the caller's first-transaction hook (its idempotency mark) in `tx`, in its own context. The writer
   * calls it for every piece it commits, and for no other: a piece refused with its own error leaves no mark.
   */
  markCommitted(tx: Transaction): Promise<void>;
};

/** What the group writer decided for one piece: its value, its own error, or "write it alone". */
export type PieceOutcome<O> = { value: O } | { error: unknown } | { alone: true };

export type CommitGroupOptions<I, O> = {
  /** the name its metrics carry (commit_group_transactions_total{group}) */
  name: string;
  /** how many transactions may be in flight at once before requests wait to be written together */
  lanes: number;
  /** the most requests one shared transaction carries */
  maxItems: number;
  /** one request in a transaction of its own, exactly as without grouping */
  alone: (input: I) => Promise<O>;
  /**
   * Several requests in ONE transaction, set-based: an outcome per piece, in order. Pieces it refuses keep
   * their own error; it must throw (rolling everything back) rather than half-write a piece.
   */
  together: (tx: Transaction, pieces: GroupPiece<I>[]) => Promise<PieceOutcome<O>[]>;
};

type Waiting<I> = {
  piece: GroupPiece<I>;
  alone: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
  ranHook?: { done: boolean };
};

/**
 * Group commit (issue 35): requests wait for the end of the event loop's current turn (so those that arrived
 * together go together) and, while every lane has a transaction in flight, for a free lane; the lane hands all
 * that waited (up to maxItems) to the group writer, which writes them together in ONE transaction with
 * set-based statements. A request that waited alone is written alone, exactly as before: under one client
 * nothing changes. A preview (CONTRACT §20) is never grouped.
 *
 * Each request keeps its own outcome: the writer refuses a bad one with its own error without failing the
 * others, and results are handed back only after the shared COMMIT. When the writer throws or the COMMIT
 * fails, nothing of the group has committed: every request is written again alone.
 */
export class CommitGroup<I, O> {
  private readonly waiting: Waiting<I>[] = [];
  private readonly lanes: Lanes;
  /** shared transactions committed, the largest, and groups sent again one by one (tests and the bench read these) */
  readonly stats = { groups: 0, largest: 0, fallbacks: 0 };

  constructor(private readonly options: CommitGroupOptions<I, O>) {
    this.lanes = new Lanes(options.lanes, () => {
      if (this.waiting.length === 0) return undefined;
      const items = this.waiting.splice(0, this.options.maxItems);
      return () => this.runGroup(items);
    });
  }

  /** how many requests wait for a lane */
  get queued(): number {
    return this.waiting.length;
  }

  /** how many lanes have a transaction in flight */
  get busyLanes(): number {
    return this.lanes.busy;
  }

  /** Holds one lane busy until `gate` settles (tests use it to make requests wait without depending on timing). */
  hold(gate: Promise<unknown>): Promise<unknown> {
    return this.lanes.hold(gate);
  }

  run(input: I): Promise<O> {
    if (inPreview()) return this.options.alone(input);
    // the caller's async context (its request, its idempotency hook, its transport), to run its parts in; not
    // AsyncLocalStorage.snapshot(), which on Node 20 binds a function with two deprecation wrappers per call
    const caller = new AsyncResource('CommitGroupRequest');
    const inContext = <T>(fn: () => T): T => caller.runInAsyncScope(fn);
    return new Promise<O>((resolve, reject) => {
      const item: Waiting<I> = {
        piece: {
          input,
          inContext,
          markCommitted: (tx: Transaction) =>
            inContext(async () => {
              item.ranHook = await runFirstTransactionHook(tx);
            }),
        },
        alone: () => inContext(() => this.options.alone(input)),
        resolve: resolve as (value: unknown) => void,
        reject,
      };
      this.waiting.push(item);
      this.lanes.schedule();
    });
  }

  private async runGroup(items: Waiting<I>[]): Promise<void> {
    if (items.length === 1) return settle(items[0]);
    let outcomes: PieceOutcome<O>[];
    try {
      outcomes = await db().transaction((tx) =>
        this.options.together(
          tx,
          items.map((item) => item.piece),
        ),
      );
    } catch (err) {
      // a lost race or a failed statement: not a request's own error (the writer returns those), so worth a line
      runtime().logger.warn(
        { err, group: this.options.name, requests: items.length },
        'commit group: rolled back; writing each request alone',
      );
      this.stats.fallbacks++;
      recordCommitGroup(this.options.name, 'fallback', items.length);
      for (const item of items) if (item.ranHook) item.ranHook.done = false; // rolled back: the mark goes with the lone write
      await Promise.all(items.map(settle));
      return;
    }
    const written = outcomes.filter((o) => 'value' in o).length;
    this.stats.groups++;
    this.stats.largest = Math.max(this.stats.largest, written);
    recordCommitGroup(this.options.name, 'committed', written);
    const alone: Promise<void>[] = [];
    items.forEach((item, i) => {
      const outcome = outcomes[i];
      if ('value' in outcome) item.resolve(outcome.value);
      else if ('error' in outcome) item.reject(outcome.error);
      else alone.push(settle(item));
    });
    await Promise.all(alone);
  }
}

async function settle(item: Waiting<unknown>): Promise<void> {
  item.ranHook = undefined;
  try {
    item.resolve(await item.alone());
  } catch (err) {
    item.reject(err);
  }
}
