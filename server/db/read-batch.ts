import { Lanes } from './lanes.js';

/**
 * Reads by key that arrive together go to the database together (issue 35): the keys asked for in one turn of
 * the event loop, or while `lanes` batches are already in flight, are read with ONE statement instead of one
 * each. Each caller gets the value of its own key (undefined when there is none); when the statement fails,
 * every caller of that batch gets its error. A read that arrives alone, with a lane free, is sent at the end of
 * its turn: one client sees no change.
 *
 * Only for reads outside a transaction (they see what is committed when the batch is sent, which is after each
 * caller asked: a write acknowledged before a read is seen by it).
 */
export type ReadBatchOptions<K, V> = {
  /** how many batch statements may be in flight at once before keys wait to be read together */
  lanes: number;
  /** the most keys one statement reads */
  maxKeys: number;
  /** one statement for all `keys`: the value of each key found */
  load: (keys: K[]) => Promise<Map<K, V>>;
};

type Waiter<V> = { resolve: (value: V | undefined) => void; reject: (reason: unknown) => void };

export class ReadBatch<K, V> {
  private waiting = new Map<K, Waiter<V>[]>();
  private readonly lanes: Lanes;
  /** statements sent and the keys they read (tests read these) */
  readonly stats = { statements: 0, keys: 0 };

  constructor(private readonly options: ReadBatchOptions<K, V>) {
    this.lanes = new Lanes(options.lanes, () => this.nextBatch());
  }

  /** how many reads wait for a lane (as CommitGroup's `queued`) */
  get queued(): number {
    let n = 0;
    for (const waiters of this.waiting.values()) n += waiters.length;
    return n;
  }

  /** Holds one lane busy until `gate` settles (tests use it to make reads wait without depending on timing). */
  hold(gate: Promise<unknown>): Promise<unknown> {
    return this.lanes.hold(gate);
  }

  get(key: K): Promise<V | undefined> {
    return new Promise<V | undefined>((resolve, reject) => {
      const waiters = this.waiting.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
      this.lanes.schedule();
    });
  }

  /** the keys that wait (up to maxKeys) as one statement */
  private nextBatch(): (() => Promise<void>) | undefined {
    if (this.waiting.size === 0) return undefined;
    const batch = new Map<K, Waiter<V>[]>();
    for (const [key, waiters] of this.waiting) {
      if (batch.size === this.options.maxKeys) break;
      batch.set(key, waiters);
    }
    for (const key of batch.keys()) this.waiting.delete(key);
    return () => this.read(batch);
  }

  private async read(batch: Map<K, Waiter<V>[]>): Promise<void> {
    this.stats.statements++;
    this.stats.keys += batch.size;
    let values: Map<K, V>;
    try {
      values = await this.options.load([...batch.keys()]);
    } catch (err) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
      return;
    }
    for (const [key, waiters] of batch) for (const w of waiters) w.resolve(values.get(key));
  }
}
