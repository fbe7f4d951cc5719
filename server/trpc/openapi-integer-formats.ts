import type { OpenAPIObject } from 'trpc-to-openapi';

const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

type Schema = Record<string, unknown>;

const isInteger = (schema: Schema): boolean => schema.type === 'integer' || (Array.isArray(schema.type) && schema.type.includes('integer'));

/** The bounds a schema proves, from minimum/maximum or their exclusive forms. */
function bounds(schema: Schema): { min?: number; max?: number } {
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  return {
    min: num(schema.minimum) ?? num(schema.exclusiveMinimum),
    max: num(schema.maximum) ?? num(schema.exclusiveMaximum),
  };
}

/**
 * zod emits integers with bounds but no `format`. Every integer of the contracts is bounded (zod's
 * own bounds are the safe-integer range), so its format follows from them: int32 when the bounds
 * fit 32 bits, int64 otherwise (always within the safe-integer range, as JSON numbers are).
 * An integer without both bounds is a contract bug: the generator refuses it.
 */
function formatOf(schema: Schema, where: string): 'int32' | 'int64' {
  const { min, max } = bounds(schema);
  if (min === undefined || max === undefined) throw new Error(`integer schema without both bounds at ${where}`);
  if (min < -Number.MAX_SAFE_INTEGER || max > Number.MAX_SAFE_INTEGER) throw new Error(`integer beyond the safe range at ${where}`);
  return min >= INT32_MIN && max <= INT32_MAX ? 'int32' : 'int64';
}

function visit(node: unknown, where: string): void {
  if (Array.isArray(node)) {
    node.forEach((child, i) => visit(child, `${where}/${i}`));
    return;
  }
  if (!node || typeof node !== 'object') return;
  const schema = node as Schema;
  if (isInteger(schema) && schema.format === undefined) schema.format = formatOf(schema, where);
  for (const [key, child] of Object.entries(schema)) visit(child, `${where}/${key}`);
}

/** Adds int32/int64 to every integer schema of the document (paths and components). */
export function addIntegerFormats(doc: OpenAPIObject): void {
  visit(doc.paths, '#/paths');
  visit(doc.components, '#/components');
}
