import type { OpenAPIObject } from 'trpc-to-openapi';

/**
 * Headers a successful answer carries that trpc-to-openapi cannot describe (procedures set them
 * on the express response): added to the operation's 200 response.
 */
const SUCCESS_HEADERS: Record<string, Record<string, Record<string, Record<string, unknown>>>> = {
  '/reports/flows': {
    get: {
      'X-Truncated': {
        description:
          '`true` when the workspace has more links than REPORT_FLOWS_LIMIT (default 1,000): the body then holds the ' +
          'largest links only (CONTRACT §11 keeps the body an array, so the signal is this header); `false` otherwise',
        required: true,
        schema: { type: 'string', enum: ['true', 'false'] },
      },
    },
  },
};

export function addSuccessHeaders(doc: OpenAPIObject): void {
  for (const [path, methods] of Object.entries(SUCCESS_HEADERS)) {
    for (const [method, headers] of Object.entries(methods)) {
      const operation = (doc.paths?.[path] as Record<string, { responses?: Record<string, { headers?: object }> }> | undefined)?.[method];
      const ok = operation?.responses?.['200'];
      if (!ok) throw new Error(`openapi: no 200 response for ${method.toUpperCase()} ${path} to add headers to`);
      ok.headers = { ...(ok.headers ?? {}), ...headers };
    }
  }
}
