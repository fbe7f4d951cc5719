import type { OpenAPIObject } from 'trpc-to-openapi';

/** server/http/idempotency.ts refuses keys outside 1..255 characters (CONTRACT §1). */
const IDEMPOTENCY_KEY_MAX = 255;

/**
 * CONTRACT §1: any POST may carry `Idempotency-Key`. Declared once as a component parameter and
 * referenced by every POST; every 2xx of a POST documents the `Idempotency-Replayed` header a replay
 * carries, and 409 (the same key with another request, or while the first is still running).
 */
export function declareIdempotency(doc: OpenAPIObject): void {
  doc.components ??= {};
  doc.components.parameters = {
    ...(doc.components.parameters ?? {}),
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Makes a retry safe: the first completed response to this key (status and body) is kept for 24 hours per caller, and a ' +
        'repeat of the same method, path and body gets it again, byte for byte, with `Idempotency-Replayed: true`, changing ' +
        'nothing. The same key with a different request, or while the first is still running, is a 409.',
      schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX },
      example: '5f0c6b1e-8a53-4d0f-9f4e-2b7d1c9a6e41',
    },
  };
  doc.components.headers = {
    ...(doc.components.headers ?? {}),
    IdempotencyReplayed: {
      description: '`true` when this response is the stored answer to an earlier request with the same `Idempotency-Key`',
      required: false,
      schema: { type: 'string', enum: ['true'] },
    },
  };
  for (const item of Object.values(doc.paths ?? {})) {
    const operation = (item as Record<string, Operation | undefined>).post;
    if (!operation) continue;
    operation.parameters = [...(operation.parameters ?? []), { $ref: '#/components/parameters/IdempotencyKey' }];
    operation.responses ??= {};
    operation.responses['409'] ??= {};
    for (const [status, response] of Object.entries(operation.responses)) {
      if (!/^2\d\d$/.test(status)) continue;
      response.headers = { ...(response.headers ?? {}), 'Idempotency-Replayed': { $ref: '#/components/headers/IdempotencyReplayed' } };
    }
  }
}

type Operation = { parameters?: object[]; responses?: Record<string, { headers?: Record<string, object> }> };
