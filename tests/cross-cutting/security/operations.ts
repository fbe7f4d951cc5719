import { readFileSync } from 'node:fs';
import { bodyThroughRef } from './body-schema.js';
import type { Permission } from '../../../shared/permissions.js';
import { appRouter } from '../../../server/trpc/router.js';
import { accessPolicyOf, type AccessPolicy } from '../../../server/trpc/procedures.js';
import { expressPaths } from '../../../server/http/express-paths.js';
import { routeAccessOf } from '../../../server/http/guarded-route.js';

/**
 * Every operation of the service, derived from the code (the tRPC router and the documented
 * express routes), each with the access policy it enforces: a procedure's builder records it, an express
 * route declares it where it is registered (guardedRoute). Nothing here is a hand-kept list of routes:
 * only the public operations are declared below, and an operation the suites cannot classify makes
 * `deriveOperations` throw.
 */

export type OpenApiParameter = { in: 'path' | 'query' | 'header'; name: string; required?: boolean; schema: JsonSchema };
export type JsonSchema = Record<string, any>;
export type OpenApiOperation = {
  operationId: string;
  parameters?: OpenApiParameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  security?: Record<string, string[]>[];
};

export type Access =
  | AccessPolicy
  /** X-API-Key (ingest) */
  | { kind: 'apiKey' }
  /** no bearer token; a check of its own (the webhook's secret / signature) */
  | { kind: 'ownCheck' };

export type Operation = {
  method: string;
  /** OpenAPI path, e.g. /entries/{id} */
  path: string;
  operationId: string;
  source: 'trpc' | 'express';
  /** dotted tRPC path (tRPC procedures only) */
  procedure?: string;
  procedureType?: 'query' | 'mutation';
  access: Access;
  doc: OpenApiOperation;
};

/**
 * Operations reachable without a bearer token. Each has its own expectations in the suites
 * (tests/cross-cutting/security/access-matrix.test.ts, "public operations"); a new one must be added here.
 */
export const PUBLIC_OPERATIONS: Record<string, string> = {
  login: 'email + password; wrong ones are 401 and reveal nothing',
  refreshToken: 'bearer token within its refresh grace (its own check, CONTRACT §4)',
  ingestEntries: 'X-API-Key of an integration, scoped to its workspace and projects',
  receiveAccountingWebhook: 'connection id + X-Webhook-Secret / provider signature',
};

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export type OpenApiDocument = {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
};

/** The operation with a named JSON request body (a union, EntryStatusChange) read through its reference, variants too. */
function withBodyResolved(doc: OpenApiDocument, op: OpenApiOperation): OpenApiOperation {
  const json = op.requestBody?.content['application/json'];
  if (!json?.schema.$ref) return op;
  const schema = bodyThroughRef(doc.components?.schemas ?? {}, json.schema);
  return { ...op, requestBody: { ...op.requestBody!, content: { ...op.requestBody!.content, 'application/json': { schema } } } };
}

/**
 * The committed document with its internal references (`#/components/...`) written out in place, so
 * the probes read every schema, parameter and enum where the operation uses it. A reference met again
 * inside itself (a recursive schema) is left as it is.
 */
export function committedOpenApi(): OpenApiDocument {
  const doc = JSON.parse(readFileSync(new URL('../../../openapi.json', import.meta.url), 'utf8')) as Record<string, unknown>;
  const target = (ref: string): unknown =>
    ref
      .slice(2)
      .split('/')
      .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  const inline = (node: unknown, open: ReadonlySet<string>): unknown => {
    if (Array.isArray(node)) return node.map((item) => inline(item, open));
    if (!node || typeof node !== 'object') return node;
    const { $ref, ...rest } = node as Record<string, unknown>;
    if (typeof $ref === 'string' && $ref.startsWith('#/') && !open.has($ref)) {
      const resolved = inline(target($ref), new Set([...open, $ref])) as Record<string, unknown>;
      return { ...resolved, ...(inline(rest, open) as Record<string, unknown>) };
    }
    return Object.fromEntries(Object.entries(node as Record<string, unknown>).map(([k, v]) => [k, inline(v, open)]));
  };
  return { ...doc, paths: inline(doc.paths, new Set()) } as OpenApiDocument;
}

export const operationKey = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

export function openApiOperationKeys(doc: OpenApiDocument): string[] {
  return Object.entries(doc.paths)
    .flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => METHODS.includes(m))
        .map((m) => operationKey(m, path)),
    )
    .sort();
}

function expressAccess(operationId: string, security: OpenApiOperation['security']): Access {
  const schemes = [...new Set((security ?? []).flatMap((s) => Object.keys(s)))];
  if (schemes.length === 1 && schemes[0] === 'Authorization') {
    // declared where the route is registered (server/http/guarded-route.ts), as a procedure's builder records its own
    const declared = routeAccessOf(operationId);
    if (!declared) throw new Error(`express operation ${operationId}: its route declares no access (guardedRoute)`);
    return declared;
  }
  if (schemes.length === 1 && schemes[0] === 'ApiKey') return { kind: 'apiKey' };
  // no bearer: only an operation the suites know, with expectations of its own
  if (!schemes.includes('Authorization') && operationId in PUBLIC_OPERATIONS) return { kind: 'ownCheck' };
  throw new Error(`express operation ${operationId}: unexpected security ${JSON.stringify(security)}`);
}

/**
 * The tRPC procedures (each with the policy its builder recorded) and the express routes
 * (registered when server/http/express-routes.ts is loaded: create the app first).
 * Throws for any operation whose access policy cannot be classified.
 */
export function deriveOperations(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  const procedures = appRouter._def.procedures as Record<string, any>;
  for (const [name, procedure] of Object.entries(procedures)) {
    const meta = procedure._def.meta?.openapi as { method: string; path: string; operationId: string } | undefined;
    if (!meta) throw new Error(`procedure ${name} has no REST route (meta.openapi): the access matrix cannot probe it`);
    const access = accessPolicyOf(procedure);
    if (!access) throw new Error(`procedure ${name}: access policy cannot be classified (not built from procedures.ts builders)`);
    const found = doc.paths[meta.path]?.[meta.method.toLowerCase()];
    if (!found) throw new Error(`procedure ${name} (${meta.method} ${meta.path}) is missing from openapi.json`);
    const docOp = withBodyResolved(doc, found);
    operations.push({
      method: meta.method.toUpperCase(),
      path: meta.path,
      operationId: meta.operationId,
      source: 'trpc',
      procedure: name,
      procedureType: procedure._def.type,
      access,
      doc: docOp,
    });
  }
  for (const [path, item] of Object.entries(expressPaths())) {
    for (const method of Object.keys(item ?? {}).filter((m) => METHODS.includes(m))) {
      const docOp = doc.paths[path]?.[method];
      if (!docOp) throw new Error(`express route ${method.toUpperCase()} ${path} is missing from openapi.json`);
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: docOp.operationId,
        source: 'express',
        access: expressAccess(docOp.operationId, docOp.security),
        doc: docOp,
      });
    }
  }
  for (const op of operations) {
    const isPublic = op.access.kind !== 'authenticated' && op.access.kind !== 'permission';
    if (isPublic && !(op.operationId in PUBLIC_OPERATIONS)) {
      throw new Error(`${op.operationId} is reachable without a bearer token but has no expectations in PUBLIC_OPERATIONS`);
    }
  }
  return operations;
}

export const bearerProtected = (op: Operation): boolean => op.access.kind === 'authenticated' || op.access.kind === 'permission';

export const requiredPermission = (op: Operation): Permission | undefined =>
  op.access.kind === 'permission' ? op.access.permission : undefined;
