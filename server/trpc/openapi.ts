import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { appRouter } from './router.js';
import { expressPaths } from '../http/express-paths.js';
import { addIntegerFormats } from './openapi-integer-formats.js';
import { ERROR_ISSUES_MAX, ERROR_MESSAGE_MAX, INT32_MAX } from '../../shared/contracts/common.js';
import { ERROR_TABLE, errorCodeOfStatus } from '../lib/error-table.js';
import '../http/express-routes.js';

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

/** The two rate limits of the service (CONTRACT §4, §12: login throttling, ingest per key) answer 429 with it. */
const RETRY_AFTER_HEADER = {
  'Retry-After': {
    description:
      'Seconds until the rate-limit window lets the caller try again (at most the window: login LOGIN_WINDOW_MINUTES, default 15; ingest 1 minute)',
    required: true,
    schema: { type: 'integer', format: 'int32', minimum: 1, maximum: INT32_MAX },
  },
};

/** The error table's description of a status. */
function errorDescription(status: number): string | undefined {
  const code = errorCodeOfStatus(status);
  return code && ERROR_TABLE[code].description;
}

type Responses = Record<string, { description?: string; content?: Record<string, unknown> }>;

/** Error responses all share the contract's error body (CONTRACT §2). */
function normaliseErrorResponses(doc: OpenAPIObject): void {
  doc.components = doc.components ?? {};
  // trpc-to-openapi adds its own error.<CODE> schemas; every error response uses Error instead
  const schemas = Object.fromEntries(Object.entries(doc.components.schemas ?? {}).filter(([name]) => !name.startsWith('error.')));
  doc.components.schemas = { ...schemas, Error: ERROR_SCHEMA as never };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, { responses?: Responses; security?: unknown[] }>)) {
      if (!operation || typeof operation !== 'object' || !operation.responses) continue;
      operation.security ??= []; // public operations say so explicitly (there is no global security)
      operation.responses['500'] = { description: '' };
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        operation.responses[status] = {
          description: errorDescription(Number(status)) ?? response.description ?? 'Error',
          ...(status === '429' ? { headers: RETRY_AFTER_HEADER } : {}),
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        };
      }
    }
  }
}

/** The access token (server/domains/auth/tokens.ts), described as RFC 8725 asks of a JWT scheme. */
const BEARER_SCHEME = {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'JWT',
  description:
    'The `access_token` of `POST /auth/login` or `POST /auth/refresh`: a JWS following the JWT best current practices of ' +
    'RFC8725 — HS256 only, the algorithm pinned on verification (no `none`, no algorithm switching), a secret of at least ' +
    '32 characters, `exp` (15 minutes), `iat`, `sub` and `sid` required, `iss` and `aud` checked. Revoked sessions and ' +
    'deactivated users are refused on every request.',
} as const;

/** Schemes of express routes, added to the document when a route's own `security` names them. */
const EXPRESS_SECURITY_SCHEMES = {
  ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Integration API key (POST /integrations)' },
  WebhookSecret: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Webhook-Secret',
    description:
      "The connection's `config.webhookSecret`, compared in constant time; required when the connection has one " +
      '(QUICKBOOKS connections with a webhookVerifierToken also need a valid `intuit-signature`).',
  },
} as const;

export function buildOpenApiDocument(): OpenAPIObject {
  const doc = generateOpenApiDocument(appRouter, {
    title: 'Finance Entries Service',
    description:
      'Finance-ledger API: entries, documents, accounting sync, periods and reports. ' +
      'Authenticate with `POST /auth/login` and send `Authorization: Bearer <access_token>`.',
    version: '0.1.0',
    openApiVersion: '3.1.0',
    baseUrl: '/',
    license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    // protected procedures get every scheme passed here, so only the bearer token;
    // the express routes' own schemes are added below once a route references them
    securitySchemes: { Authorization: BEARER_SCHEME },
    paths: expressPaths(),
  });
  const operations = Object.values(doc.paths ?? {}).flatMap((item) => Object.values(item as Record<string, { security?: object[] }>));
  for (const [name, scheme] of Object.entries(EXPRESS_SECURITY_SCHEMES)) {
    if (operations.some((operation) => operation?.security?.some((requirement) => name in requirement))) {
      doc.components = doc.components ?? {};
      doc.components.securitySchemes = { ...(doc.components.securitySchemes ?? {}), [name]: scheme };
    }
  }
  // one relative server: every deployment serves its own copy of this document at GET /openapi.json
  doc.servers = [
    {
      url: '/',
      description: 'The deployment serving this document (local, staging or production alike; the URL is relative to it)',
      'x-internal': false,
    } as never,
  ];
  normaliseErrorResponses(doc);
  addIntegerFormats(doc);
  return doc;
}
