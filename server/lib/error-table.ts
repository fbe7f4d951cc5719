import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';

type ErrorRow = {
  /** The HTTP status of every response with this code, on every route. */
  status: number;
  /** The tRPC codes presented as this code: the first is the one AppError raises. */
  trpcCodes: readonly [TRPC_ERROR_CODE_KEY, ...TRPC_ERROR_CODE_KEY[]];
  /** openapi.json's description of the status. */
  description: string;
  /** Whether the message reaches the caller; otherwise the body says only "Internal server error". */
  expose: boolean;
};

/**
 * THE error table (CONTRACT §2, DESIGN §5): `{code → HTTP status, tRPC code, description}`, read by
 * the error presenter (lib/errors.ts, used by the tRPC errorFormatter and the express error sender),
 * the express error handler and the OpenAPI generator. The code is the body's `code`: the tRPC
 * error code name. A tRPC code that is in no row is a bug: a 500.
 */
export const ERROR_TABLE = {
  BAD_REQUEST: { status: 400, trpcCodes: ['BAD_REQUEST', 'PARSE_ERROR'], description: 'Invalid input (BAD_REQUEST)', expose: true },
  UNAUTHORIZED: {
    status: 401,
    trpcCodes: ['UNAUTHORIZED'],
    description: 'Missing, invalid or expired credentials (UNAUTHORIZED)',
    expose: true,
  },
  FORBIDDEN: { status: 403, trpcCodes: ['FORBIDDEN'], description: 'Missing permission or foreign workspace (FORBIDDEN)', expose: true },
  NOT_FOUND: { status: 404, trpcCodes: ['NOT_FOUND'], description: 'Not found or not visible to the caller (NOT_FOUND)', expose: true },
  METHOD_NOT_SUPPORTED: {
    status: 405,
    trpcCodes: ['METHOD_NOT_SUPPORTED'],
    description: 'Method not supported by the procedure (METHOD_NOT_SUPPORTED)',
    expose: true,
  },
  CONFLICT: { status: 409, trpcCodes: ['CONFLICT'], description: 'Conflicts with stored state (CONFLICT)', expose: true },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    trpcCodes: ['PAYLOAD_TOO_LARGE'],
    description: 'Body or upload too large (PAYLOAD_TOO_LARGE)',
    expose: true,
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    trpcCodes: ['UNSUPPORTED_MEDIA_TYPE'],
    description: 'Unsupported media type (UNSUPPORTED_MEDIA_TYPE)',
    expose: true,
  },
  UNPROCESSABLE_CONTENT: {
    status: 422,
    trpcCodes: ['UNPROCESSABLE_CONTENT'],
    description: 'Well-formed but not processable (UNPROCESSABLE_CONTENT)',
    expose: true,
  },
  TOO_MANY_REQUESTS: {
    status: 429,
    trpcCodes: ['TOO_MANY_REQUESTS'],
    description: 'Rate limited (TOO_MANY_REQUESTS); see Retry-After',
    expose: true,
  },
  INTERNAL_SERVER_ERROR: { status: 500, trpcCodes: ['INTERNAL_SERVER_ERROR'], description: 'Internal server error', expose: false },
  SERVICE_UNAVAILABLE: {
    status: 503,
    trpcCodes: ['SERVICE_UNAVAILABLE'],
    description: 'Too busy to take the request now, or the database is failing over (SERVICE_UNAVAILABLE); see Retry-After',
    expose: true,
  },
} as const satisfies Record<string, ErrorRow>;

export type ErrorCode = keyof typeof ERROR_TABLE;

const rows = Object.entries(ERROR_TABLE) as [ErrorCode, ErrorRow][];

/** The code a tRPC error code is presented as, or undefined when no row takes it. */
export function errorCodeOfTrpc(trpcCode: string): ErrorCode | undefined {
  return rows.find(([, row]) => (row.trpcCodes as readonly string[]).includes(trpcCode))?.[0];
}

/** The code of an HTTP error status, or undefined when no row has it. */
export function errorCodeOfStatus(status: number): ErrorCode | undefined {
  return rows.find(([, row]) => row.status === status)?.[0];
}

/** The HTTP status of each code (what a client checks a body's `code` against). */
export const HTTP_STATUS = Object.fromEntries(rows.map(([code, row]) => [code, row.status])) as Record<ErrorCode, number>;
