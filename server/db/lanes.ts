/**
 * The scheduling ReadBatch and CommitGroup share (issue 35): work asked for waits for the end of the event
 * loop's current turn (so what arrived together goes together) and, while every lane is busy, for a free lane;
 * a free lane takes what waits as one piece of work (`take`). Under one caller nothing waits longer than its turn.
 */
export class Lanes {
  private inFlight = 0;
  private drainSoon: NodeJS.Immediate | undefined;

  /**
   * @param lanes how many pieces of work may be in flight at once
   * @param take the next piece of work made of what waits, or undefined when nothing does; the work settles
   *   its own callers (it answers their errors to them) and does not reject
   */
  constructor(
    private readonly lanes: number,
    private readonly take: () => (() => Promise<void>) | undefined,
  ) {}

  /** how many lanes have work in flight */
  get busy(): number {
    return this.inFlight;
  }

  /** Something waits: taken after the I/O of this turn of the event loop, or when a lane frees. */
  schedule(): void {
    this.drainSoon ??= setImmediate(() => {
      this.drainSoon = undefined;
      this.drain();
    });
  }

  /** Holds one lane busy until `gate` settles (tests use it to make work wait without depending on timing). */
  hold(gate: Promise<unknown>): Promise<unknown> {
    this.inFlight++;
    return gate.finally(() => this.free());
  }

  private drain(): void {
    while (this.inFlight < this.lanes) {
      const work = this.take();
      if (!work) return;
      this.inFlight++;
      void work().finally(() => this.free());
    }
  }

  private free(): void {
    this.inFlight--;
    this.drain();
  }
}
