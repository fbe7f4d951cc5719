import { describe, expect, it } from 'vitest';
import { z } from 'zod/v4';
// the files patches/trpc-to-openapi+3.3.0.patch rewrites (npm ci applies it): the REST adapter's string coercion
import * as cjs from '../../../node_modules/trpc-to-openapi/dist/cjs/utils/zod.js';
// @ts-expect-error the ESM build (the one the server loads) ships no declarations: it is the CJS build's twin
import * as esmBuild from '../../../node_modules/trpc-to-openapi/dist/esm/utils/zod.mjs';

const esm = esmBuild as typeof cjs;

/** `schema` behind a proxy that counts how often its shape is read (each walk of coerceSchema reads it once). */
function counted<T extends object>(schema: T): { schema: T; shapeReads: () => number } {
  let reads = 0;
  const proxy = new Proxy(schema, {
    get(target, key, receiver) {
      if (key === 'shape') reads++;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { schema: proxy, shapeReads: () => reads };
}

/**
 * The REST adapter turns on string coercion of an input's numbers and booleans (query strings carry only text)
 * by calling coerceSchema before every call. The patch walks each schema object once: the flags it sets are the
 * same every time, and the walk of a large body schema cost ~3 % of a POST's CPU.
 */
describe.each([
  ['ESM', esm.coerceSchema],
  ['CJS', cjs.coerceSchema],
])('coerceSchema (patched trpc-to-openapi, %s build)', (_build, coerceSchema) => {
  it('coerces the numbers and booleans of the object and of the objects inside it', () => {
    const schema = z.object({ n: z.number().optional(), inner: z.object({ on: z.boolean() }) });
    coerceSchema(schema);
    expect(schema.parse({ n: '42', inner: { on: 'true' } })).toEqual({ n: 42, inner: { on: true } });
  });

  it('walks a schema object once however many requests it serves, and its coercion stays on', () => {
    const { schema, shapeReads } = counted(z.object({ id: z.number(), page: z.object({ size: z.number() }) }));
    for (let request = 0; request < 5; request++) coerceSchema(schema);
    expect(shapeReads()).toBe(1);
    expect(schema.parse({ id: '7', page: { size: '20' } })).toEqual({ id: 7, page: { size: 20 } });
  });

  it('still walks each other schema object on its first request', () => {
    const first = counted(z.object({ a: z.number() }));
    const second = counted(z.object({ b: z.number() }));
    coerceSchema(first.schema);
    coerceSchema(second.schema);
    expect([first.shapeReads(), second.shapeReads()]).toEqual([1, 1]);
    expect(second.schema.parse({ b: '3' })).toEqual({ b: 3 });
  });
});
