import type { OpenAPIObject } from 'trpc-to-openapi';

import { visit, type Schema } from './openapi-walk.js';

const SCHEMA_REF = '#/components/schemas/';

/**
 * OAS 3.0 says `nullable` only with a `type` beside it; zod-openapi's 3.0 rendition of a nullable
 * reference (`Party | null`) is `{nullable: true, allOf: [{$ref}]}` without one. The referenced
 * component's type is put beside it, which is how 3.0 tools (openapi-generator, Perl's
 * OpenAPI::Client, Redocly's nullable-type-sibling) read a nullable reference.
 */
export function typeNullableReferences(doc: OpenAPIObject): void {
  const components = (doc.components?.schemas ?? {}) as Record<string, Schema>;
  const typeReference = (schema: Schema): void => {
    if (schema.nullable === true && schema.type === undefined) {
      const parts = (schema.allOf ?? schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
      const targets = (parts ?? []).map((part) => (typeof part.$ref === 'string' ? components[part.$ref.slice(SCHEMA_REF.length)] : part));
      const types = new Set(targets.map((target) => target?.type));
      const [type] = [...types];
      if (types.size !== 1 || typeof type !== 'string') {
        throw new Error(`openapi 3.0: cannot type the nullable schema ${JSON.stringify(schema).slice(0, 200)}`);
      }
      schema.type = type;
      // a string's bounds go beside the type too, or the sibling reads as an unbounded string (OWASP api4)
      const [only] = targets;
      if (targets.length === 1 && type === 'string') {
        for (const bound of ['enum', 'maxLength', 'format', 'pattern'] as const) {
          if (only?.[bound] !== undefined) schema[bound] = only[bound];
        }
      }
    }
  };
  visit(doc.paths, typeReference);
  visit(doc.components, typeReference);
}

/**
 * Perl's OpenAPI::Client (its OAS 3.0 meta-schema, read by JSON::Validator) refuses a `multipleOf` below 1
 * ("0.0001 <= minimum(1)"), though OAS 3.0 allows any number above 0. The 3.0 rendition leaves a fractional
 * `multipleOf` out; the property's description states the rule (e.g. a tax rate's at most 4 decimal places).
 */
export function dropFractionalMultipleOf(doc: OpenAPIObject): void {
  const dropFractional = (schema: Schema): void => {
    if (typeof schema.multipleOf === 'number' && schema.multipleOf < 1) {
      if (typeof schema.description !== 'string') throw new Error('openapi 3.0: a fractional multipleOf without a description to carry it');
      delete schema.multipleOf;
    }
  };
  visit(doc.paths, dropFractional);
  visit(doc.components, dropFractional);
}
