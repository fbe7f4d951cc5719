import type { ZodOpenApiPathsObject } from 'zod-openapi';

const registered: ZodOpenApiPathsObject = {};

/** Plain express routes declare their OpenAPI path objects here; the generator merges them. */
export function documentExpressPath(path: string, item: ZodOpenApiPathsObject[string]): void {
  registered[path] = { ...(registered[path] ?? {}), ...item };
}

export const expressPaths = (): ZodOpenApiPathsObject => registered;
