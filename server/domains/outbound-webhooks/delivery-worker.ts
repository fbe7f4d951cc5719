import { onDatabaseClose } from '../../db/database.js';
import { runtime } from '../../runtime.js';
import { attempt, claimDue, recordOutcomes, type Outcome } from './attempts.js';
import { onDeliveriesCommitted } from './delivery-wakeup.js';

/**
 * The delivery worker of one process (CONTRACT §15). Every instance runs one; they share the work
 * through the claims of attempts.ts (each attempt made by one instance only).
 *
 * - wakes when a transaction of this process that wrote deliveries commits (delivery-wakeup.ts; the
 *   commits within `coalesceMs` are claimed together), and polls every `pollMs` for retries coming due
 *   and for deliveries other processes wrote;
 * - keeps up to `maxInFlight` attempts going on keep-alive connections, claiming in batches as
 *   slots free up, so a slow receiver holds only its own slots;
 * - records outcomes in batches (one statement each).
 */

export type WorkerOptions = {
  maxInFlight?: number;
  batch?: number;
  pollMs?: number;
  flushMs?: number;
  /** how long a notification waits for more before claiming, so that a stream of commits is claimed in batches */
  coalesceMs?: number;
};

export class DeliveryWorker {
  private readonly maxInFlight: number;
  private readonly batch: number;
  private readonly pollMs: number;
  private readonly flushMs: number;
  private readonly coalesceMs: number;
  private coalesceTimer: NodeJS.Timeout | undefined;
  private inFlight = 0;
  private pumping = false;
  private pumpAgain = false;
  /** the last pump stopped because every slot was taken (not because nothing more was due) */
  private slotsFull = false;
  private stopped = false;
  private outcomes: Outcome[] = [];
  private flushing: Promise<void> | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private idle: (() => void)[] = [];
  private unregisterClose: (() => void) | undefined;
  private unregisterWakeup: (() => void) | undefined;

  constructor(opts: WorkerOptions = {}) {
    this.maxInFlight = opts.maxInFlight ?? 256;
    this.batch = opts.batch ?? 100;
    this.pollMs = opts.pollMs ?? 1000;
    this.flushMs = opts.flushMs ?? 25;
    this.coalesceMs = opts.coalesceMs ?? 50;
  }

  start(): void {
    this.unregisterClose = onDatabaseClose(() => this.stop());
    this.unregisterWakeup = onDeliveriesCommitted(() => this.notified());
    this.pollTimer = setInterval(() => this.kick(), this.pollMs);
    this.pollTimer.unref();
    this.kick();
  }

  /** Stops claiming, lets the attempts in flight finish and records them. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.unregisterClose?.();
    this.unregisterWakeup?.();
    clearInterval(this.pollTimer);
    clearTimeout(this.coalesceTimer);
    while (this.inFlight > 0 || this.pumping) await new Promise<void>((resolve) => this.idle.push(resolve));
    await this.flush();
  }

  /** Looks for due deliveries now (also called by notifications and the poll). */
  kick(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    void this.pump();
  }

  /** New deliveries committed here: claim them shortly, together with those of the next commits. */
  private notified(): void {
    this.coalesceTimer ??= setTimeout(() => {
      this.coalesceTimer = undefined;
      this.kick();
    }, this.coalesceMs);
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        this.slotsFull = false;
        while (!this.stopped) {
          if (this.inFlight >= this.maxInFlight) {
            this.slotsFull = true;
            break;
          }
          const wanted = Math.min(this.batch, this.maxInFlight - this.inFlight);
          const claimed = await claimDue(wanted);
          for (const c of claimed) {
            this.inFlight++;
            void attempt(c).then((o) => this.done(o));
          }
          if (claimed.length < wanted) break; // nothing more is due now
        }
      } while (this.pumpAgain && !this.stopped);
    } catch (err) {
      runtime().logger.warn({ err }, 'webhook worker: claiming deliveries failed; retrying at the next poll');
    } finally {
      this.pumping = false;
      this.wakeIdle();
    }
  }

  private done(outcome: Outcome): void {
    this.outcomes.push(outcome);
    if (this.outcomes.length >= this.batch) void this.flush();
    else this.flushTimer ??= setTimeout(() => void this.flush(), this.flushMs);
  }

  private async flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    while (this.flushing) await this.flushing;
    const batch = this.outcomes;
    if (batch.length === 0) return;
    this.outcomes = [];
    this.flushing = recordOutcomes(batch)
      .catch((err: unknown) => {
        // the claims lapse and the deliveries are attempted again: at least once
        runtime().logger.warn({ err, count: batch.length }, 'webhook worker: recording outcomes failed');
      })
      .finally(() => {
        this.flushing = undefined;
        this.inFlight -= batch.length;
        this.wakeIdle();
        // slots freed: claim again only if the last claim left due work behind for want of them (new deliveries
        // notify, retries are polled); claiming after every flush cost a query per ~25 ms for a handful of rows
        if (this.slotsFull) this.kick();
      });
    await this.flushing;
  }

  private wakeIdle(): void {
    if (this.inFlight > 0 || this.pumping) return;
    for (const resolve of this.idle.splice(0)) resolve();
  }
}

/** Starts this process's worker (main.ts; tests start their own). */
export function startDeliveryWorker(opts: WorkerOptions = {}): DeliveryWorker {
  const worker = new DeliveryWorker(opts);
  worker.start();
  return worker;
}
