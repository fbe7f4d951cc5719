import type { Actor } from '../lib/scope.js';

/**
 * Who a confirmToken and a confirmed write belong to: a person (USER) by user id; any other kind of
 * caller (an API key of CONTRACT §19) by its own id, never by its creator's. An unknown shape fails closed.
 */
export function principalOf(actor: Actor): string {
  const a = actor as { kind: string; userId?: unknown; apiKeyId?: unknown; keyId?: unknown };
  if (a.kind === 'USER' && typeof a.userId === 'string') return `USER:${a.userId}`;
  const id = a.apiKeyId ?? a.keyId;
  if (typeof id !== 'string' && typeof id !== 'number') throw new Error(`No principal for an actor of kind ${a.kind}`);
  return `${a.kind}:${id}`;
}
