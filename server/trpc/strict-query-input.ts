import type { AnyRouter } from '@trpc/server';
import { unknownQueryParameters } from '../lib/query-parameters.js';
import { unwrap, type Def } from './strict-json-bodies.js';

/**
 * CONTRACT §1: an unknown query parameter is a 400, never silently ignored. On REST the query string is
 * checked before the procedure (server/http/query-string.ts); a tRPC query carries the same parameters as
 * the fields of its `?input=` JSON, which zod would strip. The names each query procedure takes, read from
 * its input schemas once the app router is built (app.ts).
 */
const queryInputFields = new Map<string, Set<string>>();

export function registerQueryInputFields(router: AnyRouter): void {
  const procedures = router._def.procedures as Record<string, { _def: { type?: string; inputs?: { _zod: { def: Def } }[] } }>;
  for (const [path, proc] of Object.entries(procedures)) {
    if (proc._def.type !== 'query') continue;
    const defs = (proc._def.inputs ?? []).map((input) => unwrap(input._zod.def));
    if (defs.length === 0 || defs.some((def) => def.type !== 'object')) continue;
    queryInputFields.set(path, new Set(defs.flatMap((def) => Object.keys(def.shape ?? {}))));
  }
}

/** 400 for fields of a tRPC query's input that its procedure does not take (nothing to check for other inputs). */
export function assertKnownQueryInputFields(path: string, raw: unknown): void {
  const fields = queryInputFields.get(path);
  if (!fields || raw === null || typeof raw !== 'object' || Array.isArray(raw)) return;
  const unknown = Object.keys(raw).filter((name) => !fields.has(name));
  if (unknown.length === 0) return;
  // the same parameters as on REST, the same 400 (its names quoted as in a URL, so the sentence stays readable)
  throw unknownQueryParameters(unknown);
}
