import { QueryTypes } from 'sequelize';
import { changeListener } from '../../db/change-listener.js';
import { db } from '../../db/database.js';

const MAX_KEYS = 2_000;
const MAX_AGE_MS = 60_000;

type Cached = { total: number; storedAt: number };

/**
 * The `total` of entry lists: an exact count(*) over up to the whole workspace costs far more
 * than the page itself, and the same filters are asked again and again while paging. Totals
 * are kept per (workspace, filter) until a statement changing the workspace's entries or tags
 * commits: a trigger (migration 0010) announces it on `entries_changed`. Before a kept total
 * is served, `changeListener.settled()` makes sure every change committed before the request
 * has been applied, so a client always sees its own writes and everyone else's committed ones.
 */
class ListTotals {
  private byWorkspace = new Map<number, Map<string, Cached>>();
  private keys = 0;
  private generation = new Map<number, number>();
  private resets = 0;
  private counting = new Map<string, { stamp: string; total: Promise<number> }>();

  constructor() {
    changeListener.subscribe(
      'entries_changed',
      (workspaceId) => this.forget(Number(workspaceId)),
      () => this.clear(),
    );
  }

  /**
   * The count of `SELECT … FROM <from> WHERE <where>`. `from` is `entries e` unless the caller
   * narrows the rows first (a search's fenced trigram subquery, list.service.ts): it must select
   * the same rows, only faster.
   */
  async total(workspaceId: number, where: string, params: unknown[], from = 'entries e'): Promise<number> {
    const key = `${from}\u0000${where}\u0000${JSON.stringify(params)}`;
    if (changeListener.isListening()) {
      const kept = this.byWorkspace.get(workspaceId)?.get(key);
      if (kept && performance.now() - kept.storedAt < MAX_AGE_MS) {
        await changeListener.settled();
        const still = this.byWorkspace.get(workspaceId)?.get(key);
        if (still === kept && changeListener.isListening()) return kept.total;
      }
    }
    // requests asking for the same uncounted total at the same time share one count, provided
    // nothing changed in the workspace since it started (its snapshot then has every change)
    const flightKey = `${workspaceId}\u0000${key}`;
    const inFlight = this.counting.get(flightKey);
    if (inFlight && changeListener.isListening()) {
      await changeListener.settled();
      if (inFlight.stamp === this.stamp(workspaceId)) return inFlight.total;
    }
    const flight = { stamp: this.stamp(workspaceId), total: this.count(workspaceId, key, from, where, params) };
    this.counting.set(flightKey, flight);
    return flight.total.finally(() => {
      if (this.counting.get(flightKey) === flight) this.counting.delete(flightKey);
    });
  }

  private async count(workspaceId: number, key: string, from: string, where: string, params: unknown[]): Promise<number> {
    const stamp = this.stamp(workspaceId);
    const [{ total }] = await db().query<{ total: number }>(`SELECT count(*)::bigint AS total FROM ${from} WHERE ${where}`, {
      bind: params,
      type: QueryTypes.SELECT,
    });
    // a change announced while counting may not be in the count: do not keep it
    if (changeListener.isListening() && this.stamp(workspaceId) === stamp) this.keep(workspaceId, key, total);
    return total;
  }

  /** changes when anything that could make a running count stale arrives */
  private stamp(workspaceId: number): string {
    return `${this.resets}/${this.generation.get(workspaceId) ?? 0}`;
  }

  private keep(workspaceId: number, key: string, total: number): void {
    if (this.keys >= MAX_KEYS) this.clear();
    const totals = this.byWorkspace.get(workspaceId) ?? new Map<string, Cached>();
    this.byWorkspace.set(workspaceId, totals);
    if (!totals.has(key)) this.keys++;
    totals.set(key, { total, storedAt: performance.now() });
  }

  private forget(workspaceId: number): void {
    this.generation.set(workspaceId, (this.generation.get(workspaceId) ?? 0) + 1);
    this.keys -= this.byWorkspace.get(workspaceId)?.size ?? 0;
    this.byWorkspace.delete(workspaceId);
  }

  private clear(): void {
    this.resets++;
    this.byWorkspace.clear();
    this.keys = 0;
  }
}

export const listTotals = new ListTotals();
