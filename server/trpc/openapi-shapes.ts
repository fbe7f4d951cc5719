import { isDeepStrictEqual } from 'node:util';
import type { OpenAPIObject } from 'trpc-to-openapi';
import { visit, visitSchemas, type Schema } from './openapi-walk.js';

const SCHEMA_REF = '#/components/schemas/';

/**
 * Tuples (`between` conditions: `[min, max]`) are written by zod as `prefixItems`, which OAS 3.0,
 * validating proxies (Prism) and several generators do not understand. They become plain arrays of
 * their (common) item type with minItems = maxItems = the tuple's length; the order of the values is
 * said by the schema's description.
 */
export function tuplesAsArrays(doc: OpenAPIObject): void {
  visit(doc, (schema) => {
    // zod's OAS 3.0 rendition of a tuple: `items: {anyOf: [<one schema per position>]}`
    const items = schema.items as Schema | undefined;
    const members = items && Array.isArray(items.anyOf) ? (items.anyOf as unknown[]) : undefined;
    if (members && members.length > 1 && members.every((m) => isDeepStrictEqual(m, members[0]))) schema.items = members[0];
    const prefix = schema.prefixItems;
    if (!Array.isArray(prefix)) return;
    const distinct = prefix.filter((item, i) => prefix.findIndex((other) => isDeepStrictEqual(other, item)) === i);
    delete schema.prefixItems;
    schema.items = distinct.length === 1 ? distinct[0] : { anyOf: distinct };
    schema.minItems = prefix.length;
    schema.maxItems = prefix.length;
  });
}

const isPageOf = (schema: Schema): string | undefined => {
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (schema.type !== 'object' || !properties) return undefined;
  const keys = Object.keys(properties).sort().join(',');
  if (keys !== 'items,limit,offset,total') return undefined;
  const ref = (properties.items?.items as Schema | undefined)?.$ref;
  return typeof ref === 'string' && ref.startsWith(SCHEMA_REF) ? ref.slice(SCHEMA_REF.length) : undefined;
};

/**
 * Paged lists (CONTRACT §3: `{items, total, limit, offset}`) built inline by a router
 * (`Page(ReviewObject)`) become named components too (`ReviewPage`), so a generated client has
 * one page type per object instead of one per operation.
 */
export function namePages(doc: OpenAPIObject): void {
  const schemas = (doc.components ??= {}).schemas ?? {};
  doc.components.schemas = schemas;
  const media = Object.values(doc.paths ?? {}).flatMap((item) =>
    Object.values(item as Record<string, { responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> }>).flatMap(
      (operation) => Object.values(operation?.responses ?? {}).flatMap((response) => Object.values(response?.content ?? {})),
    ),
  );
  for (const content of media) {
    const item = content.schema && isPageOf(content.schema);
    if (!item || !content.schema) continue;
    const name = `${item}Page`;
    const existing = schemas[name];
    if (existing && !isDeepStrictEqual(existing, content.schema)) throw new Error(`openapi: two different pages would be named ${name}`);
    schemas[name] = content.schema as never;
    content.schema = { $ref: `${SCHEMA_REF}${name}` };
  }
}

/**
 * In the OAS 3.0 rendition, file downloads (the CSV export; the document download and the PDF report
 * already say so) are `format: binary`, 3.0's way of saying bytes, so generated clients hand back
 * the file instead of parsing it (openapi-generator's Java client reads a plain string body as
 * JSON). OAS 3.1 keeps the plain string of the media type (3.1 dropped `format: binary`), which
 * openapi-python-client reads as text.
 */
export function downloadsAsBinary(doc: OpenAPIObject): void {
  for (const item of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(
      item as Record<string, { responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> }>,
    )) {
      for (const [status, response] of Object.entries(operation?.responses ?? {})) {
        if (!/^2\d\d$/.test(status)) continue;
        for (const [mediaType, media] of Object.entries(response?.content ?? {})) {
          if (/json/.test(mediaType) || media.schema?.type !== 'string' || media.schema.format !== undefined) continue;
          media.schema.format = 'binary';
        }
      }
    }
  }
}

/**
 * An integer's exclusive bound is the next integer's inclusive one: `exclusiveMinimum: 0` (OAS 3.1)
 * or `minimum: 0, exclusiveMinimum: true` (3.0) becomes `minimum: 1`. Same values, in the form every
 * reader agrees on (Perl's JSON::Validator refused 1 for an id under the 3.0 form).
 */
export function integerBoundsInclusive(doc: OpenAPIObject): void {
  visit(doc, (schema) => {
    const integer = schema.type === 'integer' || (Array.isArray(schema.type) && schema.type.includes('integer'));
    if (!integer) return;
    if (typeof schema.exclusiveMinimum === 'number') {
      schema.minimum = Math.max(schema.exclusiveMinimum + 1, typeof schema.minimum === 'number' ? schema.minimum : -Infinity);
      delete schema.exclusiveMinimum;
    } else if (schema.exclusiveMinimum === true && typeof schema.minimum === 'number') {
      schema.minimum += 1;
      delete schema.exclusiveMinimum;
    } else if (schema.exclusiveMinimum === false) delete schema.exclusiveMinimum;
    if (typeof schema.exclusiveMaximum === 'number') {
      schema.maximum = Math.min(schema.exclusiveMaximum - 1, typeof schema.maximum === 'number' ? schema.maximum : Infinity);
      delete schema.exclusiveMaximum;
    } else if (schema.exclusiveMaximum === true && typeof schema.maximum === 'number') {
      schema.maximum -= 1;
      delete schema.exclusiveMaximum;
    } else if (schema.exclusiveMaximum === false) delete schema.exclusiveMaximum;
  });
}

/** Matches text without a NUL character (PostgreSQL text cannot hold one). */
/** Written \x00, not \u0000: Perl reads `\u` in a regular expression as upper-casing. */
export const NO_NUL_PATTERN = '^[^\\x00]*$';

/**
 * The service refuses a NUL character in any text it is sent (a 400: PostgreSQL text cannot hold
 * one), so every free-text string of a request (body, query, path) says so with a pattern; strings
 * that already have a pattern, format or enum exclude it by their own rule.
 */
export function requestTextWithoutNul(doc: OpenAPIObject): void {
  const mark = (node: unknown): void => {
    visitSchemas(node, (schema) => {
      const isString = schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string'));
      if (
        !isString ||
        schema.pattern !== undefined ||
        schema.format !== undefined ||
        schema.enum !== undefined ||
        schema.const !== undefined
      )
        return;
      schema.pattern = NO_NUL_PATTERN;
    });
  };
  const components = (doc.components?.schemas ?? {}) as Record<string, unknown>;
  const reached = new Set<string>();
  // components a request sends (rule conditions and actions …): their text is refused with NUL too
  const follow = (node: unknown): void => {
    visit(node, (schema) => {
      const name = typeof schema.$ref === 'string' ? schema.$ref.slice(SCHEMA_REF.length) : undefined;
      if (!name || reached.has(name) || !components[name]) return;
      reached.add(name);
      follow(components[name]);
    });
  };
  type Operation = { parameters?: { schema?: unknown }[]; requestBody?: { content?: Record<string, { schema?: unknown }> } };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, Operation>)) {
      const schemas = [
        ...(operation?.parameters ?? []).map((parameter) => parameter.schema),
        ...Object.values(operation?.requestBody?.content ?? {}).map((media) => media.schema),
      ];
      for (const schema of schemas) {
        mark(schema);
        follow(schema);
      }
    }
  }
  for (const name of reached) mark(components[name]);
}

/**
 * A CSV mapping names its amount one way (CONTRACT §14): `amountColumn`, or `debitColumn` and
 * `creditColumn`, never both. zod checks it with a refinement the schema cannot show, so it is said
 * in JSON Schema: exactly one of the two shapes.
 */
export function csvMappingAmountSource(doc: OpenAPIObject): void {
  visit(doc, (schema) => {
    const properties = schema.properties as Record<string, unknown> | undefined;
    if (!properties || !('amountColumn' in properties) || !('debitColumn' in properties) || !('creditColumn' in properties)) return;
    if (schema.not) return;
    // amountColumn alone, or debitColumn and creditColumn: as one `not`, not a oneOf of two anonymous
    // variants, which generators turn into types named by position (Go's CsvMapping0 and CsvMapping1)
    schema.not = {
      anyOf: [
        { required: ['amountColumn', 'debitColumn'] },
        { required: ['amountColumn', 'creditColumn'] },
        { not: { anyOf: [{ required: ['amountColumn'] }, { required: ['debitColumn', 'creditColumn'] }] } },
      ],
    };
  });
}
