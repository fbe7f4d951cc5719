import type { Actor } from '../lib/scope.js';

/**
 * Who a confirmToken and a confirmed write belong to: a person by user id, an app's API key
 * (CONTRACT §19) by its own id, never by its creator's.
 */
export function principalOf(actor: Actor): string {
  if (actor.kind === 'API_KEY') {
    if (!actor.apiKeyId) throw new Error('An API key actor without its key id');
    return `API_KEY:${actor.apiKeyId}`;
  }
  return `USER:${actor.userId}`;
}
