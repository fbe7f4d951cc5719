import type { OpenAPIObject } from 'trpc-to-openapi';
import { ERROR_ISSUES_MAX, ERROR_MESSAGE_MAX, INT32_MAX } from '../../shared/contracts/common.js';
import { ERROR_TABLE, errorCodeOfStatus, type ErrorCode } from '../lib/error-table.js';

const ERROR_SCHEMA = {
  type: 'object',
  required: ['message', 'code'],
  properties: {
    message: { type: 'string', maxLength: ERROR_MESSAGE_MAX },
    code: { type: 'string', maxLength: 32, pattern: '^[A-Z_]+$', example: 'CONFLICT', description: 'the tRPC error code name' },
    issues: {
      type: 'array',
      maxItems: ERROR_ISSUES_MAX,
      description: `zod issues, only on validation errors (the first ${ERROR_ISSUES_MAX})`,
      items: { type: 'object', additionalProperties: true },
    },
  },
};

const retryAfter = (description: string) => ({
  'Retry-After': { description, required: true, schema: { type: 'integer', format: 'int32', minimum: 1, maximum: INT32_MAX } },
});

/** The answers that tell the caller when to come back. */
const RETRY_AFTER: Partial<Record<ErrorCode, ReturnType<typeof retryAfter>>> = {
  // the two rate limits of the service (CONTRACT §4, §12: login throttling, ingest per key)
  TOO_MANY_REQUESTS: retryAfter(
    'Seconds until the rate-limit window lets the caller try again (at most the window: login LOGIN_WINDOW_MINUTES, default 15; ingest 1 minute)',
  ),
  // the database failing over (CONTRACT §22), or the idempotency layer when too many keyed requests are in flight
  SERVICE_UNAVAILABLE: retryAfter('Seconds after which the request may be sent again'),
};

type Operation = { responses?: Record<string, { description?: string }>; requestBody?: unknown; security?: unknown[] };
/** Methods whose body the REST adapter (trpc-to-openapi) reads, after checking it is JSON. */
const TRPC_BODY_METHODS = new Set<string>(['post', 'put', 'patch']);

/**
 * The error statuses an operation can answer by its shape alone, whatever its meta declares:
 * - 413 and 415 when a body is read: every express route with a request body (JSON 1 MiB, ingest
 *   10 MiB, upload 25 MiB; media types checked, uploads sniffed) and every REST procedure taking a
 *   body (the JSON parser's limit, then trpc-to-openapi's 415 for a non-JSON body, with or
 *   without declared fields);
 * - 503 on every operation: each needs the database, and while it has no primary the answer is a
 *   503 with Retry-After (CONTRACT §22); on a POST, the idempotency layer also answers it when too
 *   many keyed requests are in flight.
 * 429 is not a matter of shape: the rate-limited operations (login, ingest) declare it.
 */
function statusesByShape(method: string, operation: Operation, isExpressRoute: boolean): number[] {
  const readsBody = operation.requestBody !== undefined || (!isExpressRoute && TRPC_BODY_METHODS.has(method));
  return [...(readsBody ? [413, 415] : []), 503];
}

/**
 * Every operation lists the error statuses it can return, each with the contract's error body
 * (CONTRACT §2) and the description of the error table. `isExpressRoute` tells the plain express
 * routes (documented by their own path objects) from the REST procedures.
 */
export function normaliseErrorResponses(doc: OpenAPIObject, isExpressRoute: (method: string, path: string) => boolean): void {
  doc.components = doc.components ?? {};
  // trpc-to-openapi adds its own error.<CODE> schemas; every error response uses ErrorBody instead
  const schemas = Object.fromEntries(Object.entries(doc.components.schemas ?? {}).filter(([name]) => !name.startsWith('error.')));
  doc.components.schemas = { ...schemas, ErrorBody: ERROR_SCHEMA as never };
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries(item as Record<string, Operation>)) {
      if (!operation || typeof operation !== 'object' || !operation.responses) continue;
      operation.security ??= []; // public operations say so explicitly (there is no global security)
      for (const status of [...statusesByShape(method, operation, isExpressRoute(method, path)), 500]) {
        operation.responses[status] ??= {};
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        const code = errorCodeOfStatus(Number(status));
        const headers = code && RETRY_AFTER[code];
        operation.responses[status] = {
          description: (code && ERROR_TABLE[code].description) ?? response.description ?? 'Error',
          ...(headers ? { headers } : {}),
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
        } as never;
      }
    }
  }
}
