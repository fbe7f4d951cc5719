import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { appRouter } from './router.js';
import { expressPaths } from '../http/express-paths.js';
import { addIntegerFormats } from './openapi-integer-formats.js';
import { normaliseErrorResponses } from './openapi-errors.js';
import { addSuccessHeaders } from './openapi-success-headers.js';
import { registerComponentIds } from './openapi-components.js';
import { describeRequestBodies } from './openapi-request-bodies.js';
import { unionBodyComponents, unionComponents, unionRequestBodies } from './openapi-union-bodies.js';
import { declareIdempotency } from './openapi-idempotency.js';
import {
  csvMappingAmountSource,
  downloadsAsBinary,
  integerBoundsInclusive,
  namePages,
  requestTextWithoutNul,
  tuplesAsArrays,
} from './openapi-shapes.js';
import { addWebhooks } from './openapi-webhooks.js';
import { describe } from './openapi-descriptions.js';
import { addExamples } from './openapi-examples.js';
import { dropFractionalMultipleOf, typeNullableReferences } from './openapi-30.js';
import '../http/express-routes.js';

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

/** An app's API key (CONTRACT §19), accepted wherever the access token is. */
const APP_KEY_SCHEME = {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'fes_app_<8 visible>_<43 secret> (API key)',
  description:
    'An API key of `POST /api-keys`, sent as `Authorization: Bearer fes_app_…`: acts for its workspace (and projects) with the ' +
    'permissions it was given; 401 once revoked, expired or rotated past its grace; 429 beyond its per-minute limit.',
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

/** The OpenAPI versions the document is rendered in: 3.1 (openapi.json) and 3.0.3 (openapi-3.0.json, for older tools). */
export type OpenApiVersion = '3.1.0' | '3.0.3';

/**
 * The document of the routers and the express routes. `3.0.3` renders the same routers for tools that
 * read only OAS 3.0 (nullable instead of `type: [..., "null"]`, boolean exclusive bounds, no license
 * identifier, the §15 events under `x-webhooks`).
 */
export function buildOpenApiDocument(version: OpenApiVersion = '3.1.0'): OpenAPIObject {
  const v30 = version === '3.0.3';
  registerComponentIds();
  const expressRoutePaths = expressPaths();
  const doc = generateOpenApiDocument(appRouter, {
    title: 'Finance Entries Service',
    description:
      'Finance-ledger API: entries, documents, accounting sync, periods and reports. ' +
      'Authenticate with `POST /auth/login` and send `Authorization: Bearer <access_token>`.',
    version: '0.1.0',
    openApiVersion: version,
    baseUrl: '/',
    license: v30 ? { name: 'Proprietary' } : { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    // protected procedures get every scheme passed here as alternatives: the token or an app's key;
    // the express routes' own schemes are added below once a route references them
    securitySchemes: { Authorization: BEARER_SCHEME, AppApiKey: APP_KEY_SCHEME },
    paths: expressRoutePaths,
    defs: unionBodyComponents(),
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
  describe(doc);
  namePages(doc);
  tuplesAsArrays(doc);
  unionRequestBodies(doc);
  unionComponents(doc);
  describeRequestBodies(doc);
  if (v30) downloadsAsBinary(doc);
  integerBoundsInclusive(doc);
  requestTextWithoutNul(doc);
  csvMappingAmountSource(doc);
  declareIdempotency(doc);
  normaliseErrorResponses(doc, (method, path) => expressRoutePaths[path]?.[method as 'get'] !== undefined);
  addIntegerFormats(doc);
  addSuccessHeaders(doc);
  addWebhooks(doc, { asExtension: v30 });
  if (v30) {
    typeNullableReferences(doc);
    dropFractionalMultipleOf(doc);
  }
  addExamples(doc);
  return doc;
}
