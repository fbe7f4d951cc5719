import type { z } from 'zod/v4';
import { ProviderError } from './provider-error.js';

/** Provider answers are validated like requests: a body of the wrong shape is a failure naming the fields, never their values. */
export function parseAnswer<T extends z.ZodType>(schema: T, body: unknown, label: string, status?: number): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const fields = [...new Set(parsed.error.issues.map((i) => i.path.join('.') || '(body)'))].slice(0, 10).join(', ');
  throw new ProviderError(`${label} answered with an unexpected body (invalid: ${fields})`, 'INVALID_RESPONSE', status);
}
