import type { AnyRouter } from '@trpc/server';

export type Def = {
  type: string;
  coerce?: boolean;
  innerType?: { _zod: { def: Def } };
  shape?: Record<string, { _zod: { def: Def } }>;
  element?: { _zod: { def: Def } };
};

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const COERCIBLE = new Set(['number', 'boolean', 'bigint', 'date']);
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault']);

export const unwrap = (def: Def): Def => (WRAPPERS.has(def.type) && def.innerType ? unwrap(def.innerType._zod.def) : def);

function pinCoercion(def: Def): void {
  for (const field of Object.values(def.shape ?? {})) {
    let inner = unwrap(field._zod.def);
    if (inner.type === 'array' && inner.element) inner = unwrap(inner.element._zod.def);
    if (COERCIBLE.has(inner.type)) {
      const declared = inner.coerce === true;
      Object.defineProperty(inner, 'coerce', { get: () => declared, set: () => undefined, configurable: true, enumerable: true });
    } else if (inner.type === 'object') pinCoercion(inner);
  }
}

/**
 * trpc-to-openapi turns on string coercion for every number/boolean of an input it serves,
 * bodies included, by mutating the shared schemas: `{"isReconciled":"false"}` would then
 * reconcile. For body methods we pin each field's coercion flag at its declared value, so
 * JSON bodies stay strict (CONTRACT §2) while fields declared with z.coerce (path ids) still convert.
 */
export function keepJsonBodiesStrict(router: AnyRouter): void {
  const procedures = router._def.procedures as Record<
    string,
    { _def: { meta?: { openapi?: { method?: string } }; inputs?: { _zod: { def: Def } }[] } }
  >;
  for (const proc of Object.values(procedures)) {
    const method = proc._def.meta?.openapi?.method;
    if (!method || !BODY_METHODS.has(method)) continue;
    for (const input of proc._def.inputs ?? []) pinCoercion(unwrap(input._zod.def));
  }
}
