import { changeListener } from '../../db/change-listener.js';
import { runtime } from '../../runtime.js';

type Cached<T> = { value: T; userId: string; loadedAt: number };

/**
 * Verified sessions (user, permissions, memberships) kept in memory for AUTH_CACHE_TTL_MS.
 * Correctness comes from invalidation, not from the TTL: database triggers announce every
 * change of a user, session or membership on `auth_changed` (migration 0008) and this process
 * evicts that user's sessions when the change commits (its own ORM writes evict at once, see
 * forget-on-write.ts). A notification reaches the other instances a little after the commit,
 * so before a kept session is served `changeListener.settled()` waits until every change
 * committed before the request has been applied: a logout or a removed permission on one
 * instance is refused by all of them from the next request on (tests/cross-cutting/hard/multi-instance.test.ts).
 * While the LISTEN connection is down, nothing is served from memory.
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
    if (hit && hit.userId === userId && performance.now() - hit.loadedAt < ttl) {
      // a change committed by another instance before this request may not have been delivered
      // yet: wait until every change committed before now has reached this cache (as list totals do)
      await changeListener.settled();
      if (this.entries.get(sessionId) === hit && changeListener.isListening()) return hit.value;
    }
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

  /** Resolves once every change committed before the call has been applied to the cache (tests). */
  settled(): Promise<void> {
    return changeListener.settled();
  }

  isListening(): boolean {
    return changeListener.isListening();
  }
}
