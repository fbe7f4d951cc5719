import type { Actor } from '../lib/scope.js';

/**
 * Who a confirmToken and a confirmed write belong to. An API key (CONTRACT §19) is its own principal;
 * a person's token (until keys exist on every caller) is the user.
 */
export function principalOf(actor: Actor): string {
  const keyId = (actor as { apiKeyId?: unknown }).apiKeyId;
  return typeof keyId === 'string' ? `API_KEY:${keyId}` : `USER:${actor.userId}`;
}
