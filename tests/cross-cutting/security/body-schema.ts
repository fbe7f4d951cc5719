import type { JsonSchema } from './fuzz-values.js';

/**
 * A request body schema read through its reference: a named body (a union, EntryStatusChange) is the component
 * it names, and the variants of a union are read the same way.
 */
export function bodyThroughRef(schemas: Record<string, JsonSchema>, schema: JsonSchema & { $ref?: string }): JsonSchema {
  const named = typeof schema.$ref === 'string' ? schemas[schema.$ref.replace('#/components/schemas/', '')]! : schema;
  return named.oneOf ? { ...named, oneOf: named.oneOf.map((variant: JsonSchema) => bodyThroughRef(schemas, variant)) } : named;
}
