import { changeListener } from '../../db/change-listener.js';
import { runtime } from '../../runtime.js';

type Cached<T> = { value: T; userId: string; loadedAt: number };

/**
 * Verified sessions (user, permissions, memberships) kept in memory for AUTH_CACHE_TTL_MS.
 * Correctness comes from invalidation, not from the TTL: database triggers announce every
 * change of a user, session or membership on `auth_changed` (migration 0008) and every
 * process's LISTEN connection evicts that user's sessions when the notification arrives (its
 * own ORM writes evict at once, see forget-on-write.ts).
 *
 * A kept session is served with no query and no wait: the cost of "at once everywhere" is paid
 * by the rare writer instead. An instance that commits an auth change waits, before it answers
 * its client, until every live listener of the database has acknowledged having received it
 * (`changeListener.acknowledgedEverywhere()`, bounded at 2 s with a warning), so from the
 * writer's answer on, a logout or a removed permission is refused by every instance
 * (tests/cross-cutting/hard/multi-instance.test.ts). While this process's LISTEN connection is
 * down nothing is served from memory, and on every (re)connection the cache starts empty.
 *
 * Changes made outside the service (SQL by an operator, a script) are announced by the same
 * triggers but nobody waits for the acknowledgements: they reach the caches within the
 * notification delay (normally a few milliseconds), not before the operator's next statement.
 */
export class SessionCache<T> {
  private entries = new Map<string, Cached<T>>();
  private evictions = 0;

  constructor() {
    changeListener.subscribe(
      'auth_changed',
      (userId) => this.evictUser(userId),
      () => this.clear(),
    );
  }

  async lookup(sessionId: string, userId: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    const ttl = runtime().config.AUTH_CACHE_TTL_MS;
    if (ttl === 0 || !changeListener.isListening()) return load();
    const hit = this.entries.get(sessionId);
    // no barrier: a writer of an auth change answers only once every listener has evicted (see above)
    if (hit && hit.userId === userId && performance.now() - hit.loadedAt < ttl) return hit.value;
    const generation = this.evictions;
    const value = await load();
    // a change announced while loading may not be in what was read: do not keep it
    if (value !== undefined && generation === this.evictions && changeListener.isListening()) {
      this.entries.set(sessionId, { value, userId, loadedAt: performance.now() });
    }
    return value;
  }

  /** Whether a session is served from memory now (tests). */
  holds(sessionId: string): boolean {
    return this.entries.has(sessionId);
  }

  evictUser(userId: string): void {
    this.evictions++;
    for (const [sid, cached] of this.entries) if (cached.userId === userId) this.entries.delete(sid);
  }

  evictSession(sessionId: string): void {
    this.evictions++;
    this.entries.delete(sessionId);
  }

  clear(): void {
    this.evictions++;
    this.entries.clear();
  }

  /** Resolves once every change committed before the call has been applied to this process's cache (tests). */
  settled(): Promise<void> {
    return changeListener.settled();
  }

  isListening(): boolean {
    return changeListener.isListening();
  }
}
