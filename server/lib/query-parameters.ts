import { AppError } from './errors.js';

/** The 400 of CONTRACT §1 for query parameters a route does not take, naming them. */
export function unknownQueryParameters(names: string[]): AppError {
  const message = `Unknown query parameter${names.length > 1 ? 's' : ''}: ${names.join(', ')}`;
  return new AppError('BAD_REQUEST', message, { issues: [{ code: 'unrecognized_keys', keys: names, path: [], message }] });
}

/**
 * For routes that take no query parameter and check their own credential (API key, webhook secret):
 * called after that check, so an unauthenticated caller gets its 401 first (server/http/query-string.ts
 * leaves these routes to it).
 */
export function assertNoQueryParameters(query: object): void {
  const names = Object.keys(query);
  if (names.length > 0) throw unknownQueryParameters(names);
}
