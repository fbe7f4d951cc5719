import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * What a generated client names its models after (issue 52): every response body is a named
 * component (or an array or union of them), and no object schema sits where a generator can name
 * it only by its position: an array's items, a union's member, a map's values (Python's
 * `…_response_200_items_item`, Java's `RuleConditionAnyOf9`, Go's `…_AdditionalProperties`).
 */

type Schema = Record<string, unknown>;
const POSITIONAL = new Set(['items', 'prefixItems', 'anyOf', 'oneOf', 'allOf', 'additionalProperties']);

const isRef = (s: unknown): boolean => typeof s === 'object' && s !== null && '$ref' in s;
const isObjectModel = (s: Schema): boolean =>
  !isRef(s) &&
  ((s.type === 'object' && ('properties' in s || (typeof s.additionalProperties === 'object' && s.additionalProperties !== null))) ||
    (['anyOf', 'oneOf'] as const).some((k) => Array.isArray(s[k]) && (s[k] as Schema[]).some((m) => isObjectModel(m))));

function positional(node: unknown, path: string, key: string, found: string[]): string[] {
  if (Array.isArray(node)) node.forEach((n, i) => positional(n, `${path}/${i}`, key, found));
  else if (typeof node === 'object' && node !== null) {
    if (POSITIONAL.has(key) && isObjectModel(node as Schema)) found.push(path);
    for (const [k, v] of Object.entries(node)) if (k !== 'example' && k !== 'examples') positional(v, `${path}/${k}`, k, found);
  }
  return found;
}

for (const file of ['openapi.json', 'openapi-3.0.json']) {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as {
    paths: Record<string, Record<string, Schema>>;
    components: Schema;
    webhooks?: Schema;
  };

  describe(file, () => {
    it('names every response body', () => {
      const anonymous: string[] = [];
      for (const [path, item] of Object.entries(doc.paths))
        for (const [method, op] of Object.entries(item)) {
          const responses = (op.responses ?? {}) as Record<string, { content?: Record<string, { schema?: Schema }> }>;
          for (const [status, response] of Object.entries(responses)) {
            const schema = response.content?.['application/json']?.schema;
            if (!schema) continue;
            const named =
              isRef(schema) ||
              (schema.type === 'array' && isRef(schema.items)) ||
              (Array.isArray(schema.anyOf) && schema.anyOf.every(isRef));
            if (!named) anonymous.push(`${method.toUpperCase()} ${path} ${status}`);
          }
        }
      expect(anonymous).toEqual([]);
    });

    it('has no object schema a generator could name only by its position', () => {
      const found = positional(doc.components, '#/components', '', []);
      positional(doc.paths, '#/paths', '', found);
      positional(doc.webhooks ?? {}, '#/webhooks', '', found);
      expect(found).toEqual([]);
    });
  });
}
