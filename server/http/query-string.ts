import { parse } from 'node:querystring';
import type { NextFunction, Request, Response } from 'express';
import { emptyQueryParameters, singleValuedQueryParameters, unknownQueryParameters } from '../lib/query-parameters.js';
import { sendError } from './errors.js';
import { documentedQueryContract } from './route-templates.js';
import { authorizeRequest } from '../domains/auth/index.js';

export type QueryValues = Record<string, string | string[]>;

/**
 * Express's `query parser` (CONTRACT §1): the bracket form `tagIds[]=1&tagIds[]=2` (what axios and
 * many generated clients send) names the same parameter as `tagIds=1&tagIds=2`; repeats of a name,
 * bracketed or not, collect into one list; a name given once is a plain string. Comma lists are split
 * by the contracts' `QueryList`. Nothing else is nested (`a[b]=1` stays a name of its own, unknown).
 */
export function parseQueryString(text: string): QueryValues {
  const raw = parse(text);
  const lists = new Map<string, string[]>();
  const bracketed = new Set<string>();
  for (const [key, value] of Object.entries(raw)) {
    const name = key.endsWith('[]') ? key.slice(0, -2) : key;
    if (name !== key) bracketed.add(name);
    const values = Array.isArray(value) ? value : [value ?? ''];
    lists.set(name, [...(lists.get(name) ?? []), ...values]);
  }
  const query: QueryValues = Object.create(null) as QueryValues;
  for (const [name, values] of lists) query[name] = values.length === 1 ? values[0] : values;
  if (bracketed.size > 0) bracketedByQuery.set(query, bracketed);
  return query;
}

/** The names a parsed query (parseQueryString's answer) gave in the bracket form `name[]=`. */
const bracketedByQuery = new WeakMap<object, ReadonlySet<string>>();

/**
 * CONTRACT §1: a parameter that takes one value, given in the bracket form (`workspaceId[]=1`) or more than once —
 * the names, else none. List-valued parameters (`tagIds`) take every form.
 */
function namesGivenAsLists(query: QueryValues, single: ReadonlySet<string>): string[] {
  const bracketed = bracketedByQuery.get(query);
  return Object.entries(query)
    .filter(([name, value]) => single.has(name) && (Array.isArray(value) || bracketed?.has(name)))
    .map(([name]) => name);
}

/**
 * An unknown query parameter is a 400, never silently ignored (CONTRACT §1), and so is a single-valued one given in
 * the bracket form or more than once (`workspaceId[]=1`, `limit=5&limit=6`), and an empty value that a
 * parameter's type cannot take (`?toDate=`, which trpc-to-openapi would read as no parameter at all), on every documented
 * operation: REST procedures and express routes alike, POSTs included. The names a route takes are
 * its query parameters in the OpenAPI document, which is generated from the zod contracts. As on
 * every call, a caller without a valid bearer token gets its 401 first; routes that check their own
 * credential (ingest's API key, the webhook secret) refuse query parameters themselves after it
 * (assertNoQueryParameters). Runs before any body is read and before idempotency, so a refused
 * request changes and keeps nothing.
 */
export async function rejectUnknownQueryParameters(req: Request, res: Response, next: NextFunction): Promise<void> {
  const contract = documentedQueryContract(req.method === 'HEAD' ? 'GET' : req.method, req.path);
  if (!contract || contract.credential === 'own') return next();
  const query = req.query as QueryValues;
  const unknown = Object.keys(query).filter((name) => !contract.names.has(name));
  const empty = Object.entries(query)
    .filter(([name, value]) => contract.notEmpty.has(name) && (Array.isArray(value) ? value.includes('') : value === ''))
    .map(([name]) => name);
  const lists = namesGivenAsLists(query, contract.single);
  if (unknown.length === 0 && empty.length === 0 && lists.length === 0) return next();
  try {
    if (contract.credential === 'bearer') await authorizeRequest(req);
  } catch (err) {
    return sendError(res, err);
  }
  sendError(
    res,
    unknown.length > 0
      ? unknownQueryParameters(unknown)
      : lists.length > 0
        ? singleValuedQueryParameters(lists)
        : emptyQueryParameters(empty),
  );
}
