/** Walks of the generated OpenAPI document, for the passes that adjust its schemas (openapi-shapes.ts, openapi-30.ts). */

export type Schema = Record<string, unknown>;

/** Calls `fn` on every object below `node` (itself first, then its children, as `fn` left them). */
export function visit(node: unknown, fn: (schema: Schema) => void): void {
  if (Array.isArray(node)) return node.forEach((child) => visit(child, fn));
  if (!node || typeof node !== 'object') return;
  fn(node as Schema);
  for (const child of Object.values(node)) visit(child, fn);
}

/** Like visit(), but not into `example`/`examples` values, which are data and not schemas. */
export function visitSchemas(node: unknown, fn: (schema: Schema) => void): void {
  if (Array.isArray(node)) return node.forEach((child) => visitSchemas(child, fn));
  if (!node || typeof node !== 'object') return;
  fn(node as Schema);
  for (const [key, child] of Object.entries(node)) if (key !== 'example' && key !== 'examples') visitSchemas(child, fn);
}
