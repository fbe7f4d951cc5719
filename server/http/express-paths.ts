import type { ZodOpenApiPathsObject } from 'zod-openapi';

const registered: ZodOpenApiPathsObject = {};

/** Plain express routes declare their OpenAPI path objects here; the generator merges them. */
export function documentExpressPath(path: string, item: ZodOpenApiPathsObject[string]): void {
  registered[path] = { ...(registered[path] ?? {}), ...item };
}

/**
 * The registered paths in path order: the modules register as they load, and the document must not
 * change with the order the imports happen to load them in.
 */
export const expressPaths = (): ZodOpenApiPathsObject =>
  Object.fromEntries(Object.entries(registered).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
