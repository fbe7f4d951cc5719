import type { OpenAPIObject } from 'trpc-to-openapi';

type Schema = { $ref?: string; type?: string; required?: string[]; additionalProperties?: unknown; oneOf?: unknown[] };
type RequestBody = { required?: boolean; content?: Record<string, { schema?: Schema }> };

const METHODS = ['post', 'put', 'patch', 'delete'] as const;

/**
 * What the service does with a JSON body, said in the document (found by Schemathesis, issue 30):
 * - CONTRACT §1: write bodies are strict, an unknown field is a 400. Bodies whose zod schema is refined
 *   (from ≤ to, …) come out of the generator without `additionalProperties: false`; it is added here.
 * - A body none of whose fields is required may be left out (server/http/request-context.ts reads an
 *   empty body as `{}`): its `requestBody` is not `required`.
 */
export function describeRequestBodies(doc: OpenAPIObject): void {
  const components = (doc.components?.schemas ?? {}) as Record<string, Schema>;
  const resolve = (schema: Schema | undefined): Schema | undefined =>
    schema?.$ref ? resolve(components[schema.$ref.replace('#/components/schemas/', '')]) : schema;
  for (const item of Object.values(doc.paths ?? {})) {
    for (const method of METHODS) {
      const body = (item as Record<string, { requestBody?: RequestBody } | undefined>)[method]?.requestBody;
      const schema = resolve(body?.content?.['application/json']?.schema);
      // a union (server/trpc/openapi-union-bodies.ts) is closed, and requires its fields, in each of its variants
      if (!body || !schema || schema.type !== 'object' || schema.oneOf) continue;
      schema.additionalProperties ??= false;
      if ((schema.required ?? []).length === 0) body.required = false;
    }
  }
}
