import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_30_FILE, OPENAPI_FILE, renderOpenApi } from '../../../scripts/generate-openapi.js';
import { buildOpenApiDocument } from '../../../server/trpc/openapi.js';
import { appRouter } from '../../../server/trpc/router.js';
import { expressPaths } from '../../../server/http/express-paths.js';
import { WEBHOOK_EVENT_TYPES } from '../../../shared/contracts/outbound-webhooks.js';
import { startServer } from '../../support/http.js';

/**
 * The committed openapi.json is current, valid, complete and served as-is. Every check walks
 * all operations, so routes added by new domains are covered without touching this file.
 */

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const BODY_METHODS = new Set(['post', 'put', 'patch']);
const ERROR_REF = '#/components/schemas/ErrorBody';
const DRIFT = 'openapi.json is out of date: run npm run openapi';

type Schema = Record<string, any>;
type MediaTypes = Record<string, { schema?: Schema }>;
type Operation = {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string }[];
  requestBody?: { content?: MediaTypes };
  responses?: Record<string, { description?: string; content?: MediaTypes }>;
};
type Doc = {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, Schema>; securitySchemes?: Record<string, unknown> };
};
type Op = { key: string; path: string; method: string; operation: Operation; express: boolean };

const committedText = readFileSync(OPENAPI_FILE, 'utf8');
const committed = JSON.parse(committedText) as Doc;
const committed30Text = readFileSync(OPENAPI_30_FILE, 'utf8');
const committed30 = JSON.parse(committed30Text) as Doc;
const DRIFT_30 = 'openapi-3.0.json is out of date: run npm run openapi';

/** Operations that plain express routes document themselves (uploads, downloads, CSV/PDF, webhooks, ingest). */
const expressOperations = new Set<string>();
for (const [path, item] of Object.entries(expressPaths())) {
  for (const method of METHODS) if (item && method in item) expressOperations.add(`${method.toUpperCase()} ${path}`);
}

function operationsOf(doc: Doc): Op[] {
  return Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m] !== undefined).map((method) => {
      const key = `${method.toUpperCase()} ${path}`;
      return { key, path, method, operation: item[method] as Operation, express: expressOperations.has(key) };
    }),
  );
}

const operations = operationsOf(committed);

/** tRPC procedures exposed as REST, with the access rule they declare. */
const restProcedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { meta?: any } }>)
  .map(([name, procedure]) => ({ name, openapi: procedure._def.meta?.openapi }))
  .filter((p): p is { name: string; openapi: { method: string; path: string; protect?: boolean; errorResponses?: number[] } } =>
    Boolean(p.openapi),
  )
  .map((p) => ({ ...p, key: `${p.openapi.method.toUpperCase()} ${p.openapi.path}` }));

const isSchema = (schema: unknown): boolean =>
  typeof schema === 'object' &&
  schema !== null &&
  ['type', '$ref', 'oneOf', 'anyOf', 'allOf', 'const', 'enum'].some((k) => k in (schema as object));

describe('openapi.json', () => {
  it('is current: the regenerated document equals the committed file (drift)', () => {
    const generated = JSON.parse(JSON.stringify(buildOpenApiDocument())) as Doc;
    expect(committed, DRIFT).toEqual(generated);
    expect(committedText === renderOpenApi(), `${DRIFT} (formatting differs)`).toBe(true);
  });

  it('is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
    expect(committed.openapi).toMatch(/^3\.1\./);
    // validate() dereferences in place, so give it a copy
    await expect(SwaggerParser.validate(structuredClone(committed) as never)).resolves.toBeTruthy();
  });

  it('documents operations, and every REST procedure and express route is among them', () => {
    expect(operations.length).toBeGreaterThan(0);
    const documented = new Set(operations.map((o) => o.key));
    for (const p of restProcedures) expect(documented.has(p.key), `${p.name} (${p.key}) missing from openapi.json`).toBe(true);
    for (const key of expressOperations) expect(documented.has(key), `express route ${key} missing from openapi.json`).toBe(true);
    const known = new Set([...restProcedures.map((p) => p.key), ...expressOperations]);
    for (const o of operations) expect(known.has(o.key), `${o.key} is neither a procedure nor a documented express route`).toBe(true);
  });

  it('gives every operation a unique operationId, tags and a summary', () => {
    const seen = new Map<string, string>();
    for (const { key, operation } of operations) {
      expect(operation.operationId, `${key}: operationId`).toMatch(/^[A-Za-z][A-Za-z0-9_]*$/);
      const id = operation.operationId!;
      expect(seen.get(id), `${key}: operationId ${id} already used by ${seen.get(id)}`).toBeUndefined();
      seen.set(id, key);
      expect(operation.tags?.length, `${key}: tags`).toBeGreaterThan(0);
      for (const tag of operation.tags ?? []) expect(tag.trim(), `${key}: empty tag`).not.toBe('');
      expect(operation.summary?.trim(), `${key}: summary`).toBeTruthy();
    }
  });

  it('documents a 200 response with a schema (JSON unless the route is an express one)', () => {
    for (const { key, operation, express } of operations) {
      const responses = operation.responses ?? {};
      if (!express) {
        const schema = responses['200']?.content?.['application/json']?.schema;
        expect(isSchema(schema), `${key}: 200 response needs an application/json schema`).toBe(true);
        continue;
      }
      // express routes (downloads, CSV, PDF, redirects …) may answer another 2xx/3xx with another media type
      const success = Object.entries(responses).filter(([status]) => /^[23]\d\d$/.test(status));
      expect(success.length, `${key}: no success response`).toBeGreaterThan(0);
      for (const [status, response] of success) {
        for (const [mediaType, media] of Object.entries(response.content ?? {})) {
          expect(isSchema(media.schema), `${key}: ${status} ${mediaType} needs a schema`).toBe(true);
        }
      }
    }
  });

  it('documents request bodies of POST/PUT/PATCH with schemas', () => {
    for (const { key, method, operation } of operations) {
      if (!BODY_METHODS.has(method)) {
        expect(operation.requestBody, `${key}: ${method.toUpperCase()} must not take a body`).toBeUndefined();
        continue;
      }
      const content = operation.requestBody?.content;
      if (!content) {
        // no body is fine only when the path alone names the action (POST /entries/{id}/void);
        // otherwise give the procedure `.input(z.object({...}).strict())`
        const pathParams = (operation.parameters ?? []).filter((p) => p.in === 'path');
        expect(pathParams.length, `${key}: has neither a request body nor path parameters`).toBeGreaterThan(0);
        continue;
      }
      expect(Object.keys(content).length, `${key}: request body without media types`).toBeGreaterThan(0);
      for (const [mediaType, media] of Object.entries(content)) {
        expect(isSchema(media.schema), `${key}: request ${mediaType} needs a schema`).toBe(true);
      }
    }
  });

  it('uses the shared ErrorBody schema for every error response, including the statuses each procedure declares', () => {
    expect(committed.components?.schemas?.ErrorBody).toMatchObject({ type: 'object', required: ['message', 'code'] });
    for (const { key, operation } of operations) {
      const responses = operation.responses ?? {};
      const errors = Object.keys(responses).filter((s) => Number(s) >= 400);
      expect(
        errors.some((s) => s.startsWith('4')),
        `${key}: no 4xx response`,
      ).toBe(true);
      expect(errors, `${key}: 500`).toContain('500');
      for (const status of errors) {
        expect(responses[status]?.description?.trim(), `${key}: ${status} description`).toBeTruthy();
        expect(responses[status]?.content, `${key}: ${status} must be exactly the ErrorBody body`).toEqual({
          'application/json': { schema: { $ref: ERROR_REF } },
        });
      }
    }
    for (const p of restProcedures) {
      const operation = committed.paths[p.openapi.path]?.[p.openapi.method.toLowerCase()] as Operation | undefined;
      for (const status of p.openapi.errorResponses ?? []) {
        expect(operation?.responses?.[String(status)], `${p.key}: declared ${status} not documented`).toBeDefined();
      }
    }
  });

  it('lists security on protected operations, and only defined schemes', () => {
    const schemes = new Set(Object.keys(committed.components?.securitySchemes ?? {}));
    for (const { key, operation } of operations) {
      expect(Array.isArray(operation.security), `${key}: security must be explicit ([] when public)`).toBe(true);
      for (const requirement of operation.security ?? []) {
        for (const name of Object.keys(requirement)) expect(schemes.has(name), `${key}: undefined security scheme ${name}`).toBe(true);
      }
    }
    for (const p of restProcedures) {
      const operation = committed.paths[p.openapi.path]?.[p.openapi.method.toLowerCase()] as Operation | undefined;
      const expected = p.openapi.protect === false ? [] : [{ Authorization: [] }, { AppApiKey: [] }]; // a token or an app's key (CONTRACT §19)
      expect(operation?.security, `${p.key}: security (protect: ${p.openapi.protect ?? true})`).toEqual(expected);
      if (p.openapi.protect !== false) {
        expect(operation?.responses?.['401'], `${p.key}: protected, so 401 must be documented`).toBeDefined();
      }
    }
    // express routes declare their own security (the generator would otherwise mark them public)
    for (const [path, item] of Object.entries(expressPaths())) {
      for (const method of METHODS) {
        const operation = (item as Record<string, unknown>)?.[method];
        if (operation) expect(operation, `${method.toUpperCase()} ${path}: declare security ([] if public)`).toHaveProperty('security');
      }
    }
  });

  it('never leaves unused trpc-to-openapi error schemas behind', () => {
    const text = JSON.stringify(committed);
    for (const name of Object.keys(committed.components?.schemas ?? {})) {
      expect(text.includes(`"#/components/schemas/${name}"`), `component schema ${name} is unused`).toBe(true);
    }
  });
});

describe('openapi-3.0.json (the same routers as OAS 3.0.3)', () => {
  it('is current: the regenerated 3.0 rendition equals the committed file (drift)', () => {
    expect(committed30, DRIFT_30).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument('3.0.3'))));
    expect(committed30Text === renderOpenApi('3.0.3'), `${DRIFT_30} (formatting differs)`).toBe(true);
  });

  it('is a valid OpenAPI 3.0 document (swagger-parser) with the same operations as openapi.json', async () => {
    expect(committed30.openapi).toBe('3.0.3');
    await expect(SwaggerParser.validate(structuredClone(committed30) as never)).resolves.toBeTruthy();
    const ids = (doc: Doc) => operationsOf(doc).map((o) => `${o.key} ${o.operation.operationId}`);
    expect(ids(committed30)).toEqual(ids(committed));
    expect(Object.keys(committed30.components?.schemas ?? {}).sort()).toEqual(Object.keys(committed.components?.schemas ?? {}).sort());
  });

  it('holds nothing a 3.0 reader refuses: no type arrays or null types, no numeric exclusive bounds, no const, no prefixItems', () => {
    const found: string[] = [];
    const visit = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((child, i) => visit(child, `${where}/${i}`));
      if (!node || typeof node !== 'object') return;
      const schema = node as Schema;
      if (Array.isArray(schema.type) || schema.type === 'null') found.push(`${where}: type ${JSON.stringify(schema.type)}`);
      if (typeof schema.exclusiveMinimum === 'number' || typeof schema.exclusiveMaximum === 'number')
        found.push(`${where}: numeric exclusive bound`);
      if ('const' in schema && typeof schema.const !== 'object') found.push(`${where}: const`);
      if ('prefixItems' in schema) found.push(`${where}: prefixItems`);
      if (schema.nullable === true && schema.type === undefined) found.push(`${where}: nullable without type`);
      for (const [key, child] of Object.entries(schema)) if (key !== 'example' && key !== 'examples') visit(child, `${where}/${key}`);
    };
    visit(committed30.paths, '#/paths');
    visit(committed30.components, '#/components');
    expect(found).toEqual([]);
  });
});

describe('the documents hold what generated clients need (issue 30)', () => {
  const schemas = committed.components?.schemas ?? {};
  const resolveBody = (operation: Operation): Schema => {
    const schema = operation.requestBody?.content?.['application/json']?.schema as Schema;
    return schema.$ref ? schemas[String(schema.$ref).split('/').at(-1)!]! : schema;
  };
  it('names the contract objects as components and refers to them', () => {
    for (const name of [
      'Entry',
      'EntryDetail',
      'EntryPage',
      'Document',
      'Review',
      'ReviewPage',
      'SyncRecord',
      'Rule',
      'BankLine',
      'WebhookEndpoint',
      'ErrorBody',
    ]) {
      expect(schemas[name], `component ${name}`).toBeDefined();
    }
    const create = committed.paths['/entries']?.post as Operation;
    expect(create.responses?.['200']?.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/Entry' });
    const list = committed.paths['/entries']?.get as Operation;
    expect(list.responses?.['200']?.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/EntryPage' });
    expect(schemas.Error, 'Error collides with built-in names in TypeScript and Java').toBeUndefined();
  });

  it('declares Idempotency-Key on every POST', () => {
    for (const { key, method, operation } of operations) {
      if (method !== 'post') continue;
      expect(operation.parameters, key).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
      expect(operation.responses?.['409'], `${key}: 409 (same key, another request)`).toBeDefined();
    }
  });

  it('describes every operation and parameter, and gives every request body and 2xx JSON body an example', () => {
    for (const { key, operation } of operations) {
      expect((operation as { description?: string }).description?.trim(), `${key}: description`).toBeTruthy();
      for (const parameter of (operation.parameters ?? []) as { name?: string; description?: string; $ref?: string }[]) {
        if (!parameter.$ref) expect(parameter.description?.trim(), `${key}: parameter ${parameter.name}`).toBeTruthy();
      }
      const bodies = [
        ...Object.values(operation.requestBody?.content ?? {}),
        ...Object.entries(operation.responses ?? {})
          .filter(([status]) => /^2/.test(status))
          .flatMap(([, r]) =>
            Object.entries(r.content ?? {})
              .filter(([type]) => type === 'application/json')
              .map(([, m]) => m),
          ),
      ] as { example?: unknown }[];
      for (const media of bodies) expect(media.example, `${key}: example`).toBeDefined();
    }
  });

  it('has one webhook per CONTRACT §15 event type, its body the event with the contract object', () => {
    const webhooks = (committed as unknown as { webhooks: Record<string, { post: Operation }> }).webhooks;
    expect(Object.keys(webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    const body = webhooks['entry.refunded']!.post.requestBody?.content?.['application/json']?.schema as Schema;
    const event = schemas[String(body.$ref).split('/').at(-1)!]!;
    expect(event.properties.type).toEqual({ type: 'string', enum: ['entry.refunded'] });
    expect(event.properties.data.properties.object).toEqual({ $ref: '#/components/schemas/Entry' });
    expect(event.properties.data.required).toEqual(['object', 'originalEntryId']);
  });

  it('says what the service does with a JSON body: strict everywhere, optional when no field is required (Schemathesis)', () => {
    const resolve = (schema: Schema): Schema => (schema.$ref ? resolve(schemas[String(schema.$ref).split('/').at(-1)!]!) : schema);
    let optional = 0;
    for (const { key, operation } of operations) {
      const media = operation.requestBody?.content?.['application/json'];
      if (!media) continue;
      const schema = resolve(media.schema as Schema);
      if (schema.type !== 'object') continue;
      // a body that is a union by one field (EntryStatusChange): each of its variants is closed
      const variants = schema.oneOf ? (schema.oneOf as Schema[]).map(resolve) : [schema];
      for (const variant of variants) {
        expect(variant.additionalProperties, `${key}: unknown fields are a 400 (CONTRACT §1)`).toBe(false);
      }
      const required = variants.every((variant) => ((variant.required ?? []) as string[]).length > 0);
      expect((operation.requestBody as { required?: boolean }).required ?? false, `${key}: required body`).toBe(required);
      if (!required) optional++;
    }
    expect(optional).toBeGreaterThan(10); // PATCH /entries/{id} and the other edits of a few fields
  });

  it('spells the ISO 4217 list out where a request names a currency, and a download as the range of stored types', () => {
    const create = resolveBody(committed.paths['/entries']?.post as Operation);
    const pattern = new RegExp(String(create.properties.baseCurrency.pattern));
    expect(['USD', 'EUR', 'JPY', 'BHD'].every((c) => pattern.test(c))).toBe(true);
    expect(['ABC', 'XTS', 'usd', 'USDX'].some((c) => pattern.test(c))).toBe(false);
    const download = committed.paths['/entries/{entryId}/documents/{documentId}/download']?.get as Operation;
    expect(Object.keys(download.responses?.['200']?.content ?? {})).toEqual(['*/*']);
  });

  it('writes tuples as arrays with minItems and maxItems (no prefixItems)', () => {
    expect(committedText).not.toContain('prefixItems');
    expect(schemas.RuleCondition!.anyOf).toContainEqual({ $ref: '#/components/schemas/RuleAmountCentsBetweenCondition' });
    const between = schemas.RuleAmountCentsBetweenCondition!;
    expect(between.properties.value).toMatchObject({ type: 'array', minItems: 2, maxItems: 2, items: { type: 'integer' } });
  });
});

describe('GET /openapi.json', () => {
  let body: unknown;
  let text: string;
  let contentType: string | null;
  let status: number;

  beforeAll(async () => {
    const api = await startServer();
    const res = await api.get('/openapi.json');
    ({ body, status, text } = res);
    contentType = res.headers.get('content-type');
  });

  it('serves the committed document', () => {
    expect(status).toBe(200);
    expect(contentType).toMatch(/^application\/json/);
    expect(body, DRIFT).toEqual(committed);
    expect(text === committedText, 'served text differs from openapi.json').toBe(true);
  });

  it('serves the committed 3.0 rendition at GET /openapi-3.0.json', async () => {
    const api = await startServer();
    const res = await api.get('/openapi-3.0.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.text === committed30Text, 'served text differs from openapi-3.0.json').toBe(true);
  });
});

describe('extraction status (CONTRACT §21: PENDING until the reading has run)', () => {
  it('every extraction status the documents declare (REST responses and the document.extracted event) includes PENDING', () => {
    const found: unknown[][] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (!node || typeof node !== 'object') return;
      const e = (node as { enum?: unknown[] }).enum;
      if (Array.isArray(e) && e.includes('DONE') && e.includes('FAILED')) found.push(e);
      Object.values(node).forEach(walk);
    };
    for (const file of [OPENAPI_FILE, OPENAPI_30_FILE]) walk(JSON.parse(readFileSync(file, 'utf8')));
    expect(found.length).toBeGreaterThan(0);
    for (const e of found) expect(e).toEqual(['PENDING', 'DONE', 'NONE', 'FAILED']);
  });
});
