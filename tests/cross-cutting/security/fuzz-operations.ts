import { readFileSync } from 'node:fs';
import { bodyThroughRef } from './body-schema.js';
import type { JsonSchema } from './fuzz-values.js';

/** One operation of the committed `openapi.json`, reduced to what the fuzzer needs. */
export type Operation = {
  id: string;
  method: string;
  path: string;
  pathParams: { name: string; schema: JsonSchema }[];
  queryParams: { name: string; schema: JsonSchema; required: boolean }[];
  headerParams: string[];
  body?: { kind: 'json' | 'multipart'; schema: JsonSchema; required: boolean };
  response: 'json' | 'csv' | 'pdf' | 'binary';
  /** the media types of the documented success response (a download may offer several, by a `format` parameter) */
  responseTypes: string[];
  auth: 'bearer' | 'apiKey' | 'none';
};

type RawParam = { in: string; name: string; required?: boolean; schema?: JsonSchema };
type RawOp = {
  operationId?: string;
  parameters?: RawParam[];
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, unknown> }>;
  security?: Record<string, unknown>[];
};

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
/** Operations that end the fuzzer's own session or take objects away from the others run last. */
const LAST = (op: Operation) => (op.method === 'DELETE' ? 1 : 0) + (op.path === '/auth/logout' ? 2 : 0);

function responseKind(op: RawOp): Operation['response'] {
  const ok = Object.entries(op.responses).find(([status]) => status.startsWith('2'))?.[1];
  const types = Object.keys(ok?.content ?? {});
  if (types.some((t) => t.includes('json'))) return 'json';
  if (types.includes('text/csv')) return 'csv';
  if (types.includes('application/pdf')) return 'pdf';
  return 'binary';
}

export function loadOperations(file = 'openapi.json'): Operation[] {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as {
    paths: Record<string, Record<string, RawOp>>;
    security?: Record<string, unknown>[];
    components: { schemas: Record<string, JsonSchema> };
  };
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const params = raw.parameters ?? [];
      const content = raw.requestBody?.content ?? {};
      const json = content['application/json'];
      const multipart = content['multipart/form-data'];
      const security = raw.security ?? doc.security ?? [];
      ops.push({
        id: raw.operationId ?? `${method} ${path}`,
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        queryParams: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema ?? {}, required: !!p.required })),
        headerParams: params.filter((p) => p.in === 'header').map((p) => p.name),
        body: json
          ? { kind: 'json', schema: bodyThroughRef(doc.components.schemas, json.schema), required: !!raw.requestBody?.required }
          : multipart
            ? { kind: 'multipart', schema: multipart.schema, required: true }
            : undefined,
        response: responseKind(raw),
        responseTypes: Object.keys(Object.entries(raw.responses).find(([status]) => status.startsWith('2'))?.[1]?.content ?? {}),
        auth: security.some((s) => 'ApiKey' in s) ? 'apiKey' : security.some((s) => 'Authorization' in s) ? 'bearer' : 'none',
      });
    }
  }
  return ops.sort((a, b) => LAST(a) - LAST(b));
}
