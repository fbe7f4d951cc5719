import { AppError } from './errors.js';

/**
 * A name as it stands in the URL, percent-encoded (parentheses and quotes too): a caller's name can
 * hold any character, and the message must stay a readable sentence (its raw form is in `issues`).
 */
const asInUrl = (name: string) =>
  `"${encodeURIComponent(name).replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}"`;

/** A 400 for query parameters given with an empty value their type cannot take (`?toDate=`), naming them. */
export function emptyQueryParameters(names: string[]): AppError {
  const message = `Empty query parameter${names.length > 1 ? 's' : ''} ${names.map(asInUrl).join(', ')}: give a value, or leave it out.`;
  return new AppError('BAD_REQUEST', message, { issues: names.map((name) => ({ code: 'invalid_type', path: [name], message: 'empty' })) });
}

/** The 400 of CONTRACT §1 for parameters that take one value given in the bracket form or more than once, naming them. */
export function singleValuedQueryParameters(names: string[]): AppError {
  const message = `Query parameter${names.length > 1 ? 's' : ''} ${names.map(asInUrl).join(', ')} take${names.length > 1 ? '' : 's'} one value: give it once, without [].`;
  return new AppError('BAD_REQUEST', message, {
    issues: names.map((name) => ({ code: 'invalid_type', path: [name], message: 'one value expected' })),
  });
}

/** The 400 of CONTRACT §1 for query parameters a route does not take, naming them. */
export function unknownQueryParameters(names: string[]): AppError {
  const message = `Unknown query parameter${names.length > 1 ? 's' : ''} ${names.map(asInUrl).join(', ')}.`;
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
