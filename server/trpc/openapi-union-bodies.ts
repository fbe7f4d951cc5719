import { z } from 'zod/v4';
import type { OpenAPIObject } from 'trpc-to-openapi';
import * as entries from '../../shared/contracts/entries.js';
import * as booksWrite from '../../shared/contracts/books-write.js';
import { appRouter } from './router.js';
import type { RouteMeta } from './init.js';

/**
 * Request bodies that are a union by one field (issue 52: the document says what the service refuses).
 * trpc-to-openapi takes only an object as a procedure's input and documents its fields as one object; for
 * these inputs the object's check runs the union (shared/contracts), and the document shows the union
 * itself: a named `oneOf` of closed objects with a discriminator, each variant a named component.
 */
const UNION_BODIES: ReadonlyArray<{ input: z.ZodType; name: string; body: z.ZodType; variants: [z.ZodType, string][] }> = [
  {
    input: entries.UpdateStatusInput,
    name: 'EntryStatusChange',
    body: entries.EntryStatusChange,
    variants: [
      [entries.EntryStatusChangeWithReason, 'EntryStatusChangeWithReason'],
      [entries.EntryStatusChangeReasonOptional, 'EntryStatusChangeReasonOptional'],
    ],
  },
];

/**
 * Components that are one of closed variants without a field to tell them apart (a journal line: exactly one of
 * debitCents or creditCents). The input reads the component's permissive object and the service refuses the
 * others after the caller's access; the document shows the component as a `oneOf` of its named variants.
 */
const UNION_COMPONENTS: ReadonlyArray<{ name: string; description: string; variants: [z.ZodType, string][] }> = [
  {
    name: 'ManualJournalLine',
    description: 'exactly one of debitCents or creditCents',
    variants: [
      [booksWrite.ManualJournalDebitLine, 'ManualJournalDebitLine'],
      [booksWrite.ManualJournalCreditLine, 'ManualJournalCreditLine'],
    ],
  },
];

let registered = false;

/**
 * The unions and the variants of UNION_COMPONENTS, for generateOpenApiDocument's `defs` (so they are rendered as
 * components), every variant named.
 */
export function unionBodyComponents(): Record<string, z.ZodType> {
  if (!registered) {
    registered = true;
    for (const { variants } of [...UNION_BODIES, ...UNION_COMPONENTS]) {
      for (const [schema, id] of variants) z.globalRegistry.add(schema, { ...(z.globalRegistry.get(schema) ?? {}), id });
    }
  }
  return Object.fromEntries([
    ...UNION_BODIES.map(({ name, body }) => [name, body] as const),
    ...UNION_COMPONENTS.flatMap(({ variants }) => variants.map(([schema, id]) => [id, schema] as const)),
  ]);
}

/** Each component of UNION_COMPONENTS as the `oneOf` of its variants. */
export function unionComponents(doc: OpenAPIObject): void {
  const schemas = doc.components?.schemas as Record<string, unknown> | undefined;
  for (const { name, description, variants } of UNION_COMPONENTS) {
    if (!schemas?.[name]) throw new Error(`openapi: no component ${name} to document as a union`);
    schemas[name] = { oneOf: variants.map(([, id]) => ({ $ref: `#/components/schemas/${id}` })), description };
  }
}

type Procedure = { _def: { meta?: RouteMeta; inputs: unknown[] } };
type Operation = { requestBody?: { content?: Record<string, { schema?: unknown }> } };

/** Points the request body of each operation whose input is one of UNION_BODIES at its union component. */
export function unionRequestBodies(doc: OpenAPIObject): void {
  const procedures = Object.values(appRouter._def.procedures as unknown as Record<string, Procedure>);
  for (const { input, name } of UNION_BODIES) {
    const routes = procedures.filter((p) => p._def.inputs[0] === input && p._def.meta?.openapi);
    if (routes.length === 0) throw new Error(`openapi: no operation takes the input documented as ${name}`);
    for (const procedure of routes) {
      const { method, path } = procedure._def.meta!.openapi!;
      const operation = (doc.paths?.[path] as Record<string, Operation> | undefined)?.[method.toLowerCase()];
      const json = operation?.requestBody?.content?.['application/json'];
      if (!json) throw new Error(`openapi: ${method} ${path} has no JSON body to document as ${name}`);
      json.schema = { $ref: `#/components/schemas/${name}` };
    }
  }
}
