import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { appRouter } from './router.js';
import { expressPaths } from '../http/express-paths.js';
import '../http/express-routes.js';

const ERROR_DESCRIPTIONS: Record<string, string> = {
  '400': 'Invalid input (BAD_REQUEST)',
  '401': 'Missing, invalid or expired credentials (UNAUTHORIZED)',
  '403': 'Missing permission or foreign workspace (FORBIDDEN)',
  '404': 'Not found or not visible to the caller (NOT_FOUND)',
  '409': 'Conflicts with stored state (CONFLICT)',
  '413': 'Body or upload too large (PAYLOAD_TOO_LARGE)',
  '415': 'Unsupported media type (UNSUPPORTED_MEDIA_TYPE)',
  '429': 'Rate limited (TOO_MANY_REQUESTS); see Retry-After',
  '500': 'Internal server error',
};

const ERROR_SCHEMA = {
  type: 'object',
  required: ['message', 'code'],
  properties: {
    message: { type: 'string' },
    code: { type: 'string', example: 'CONFLICT' },
    issues: { type: 'array', items: { type: 'object', additionalProperties: true } },
  },
};

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
          description: ERROR_DESCRIPTIONS[status] ?? response.description ?? 'Error',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        };
      }
    }
  }
}

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
    // ApiKey is added below once an express route (ingest) references it in its own security
    securitySchemes: { Authorization: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    paths: expressPaths(),
  });
  const operations = Object.values(doc.paths ?? {}).flatMap((item) => Object.values(item as Record<string, { security?: object[] }>));
  if (operations.some((operation) => operation?.security?.some((requirement) => 'ApiKey' in requirement))) {
    doc.components = doc.components ?? {};
    doc.components.securitySchemes = {
      ...(doc.components.securitySchemes ?? {}),
      ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    };
  }
  doc.servers = [{ url: '/', description: 'This server' }];
  normaliseErrorResponses(doc);
  return doc;
}
