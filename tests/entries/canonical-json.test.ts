import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../server/domains/entries/index.js';

/**
 * The hashes of every stored event chain, of MCP confirm tokens and of sync's "unchanged since" check depend on
 * canonicalJson's exact text. The model below is the definition those hashes were made with (the first
 * implementation, written with arrays and closures); the current one must produce the same text for every value.
 */
function definition(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(definition).join(',')}]`;
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${definition(obj[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.constant(undefined),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true }),
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.string({ unit: 'binary', maxLength: 6 }), tie('value'), { maxKeys: 6 }),
  ),
}));

describe('canonicalJson', () => {
  it('sorts keys at every level, drops undefined fields, keeps array order and writes a missing element as null', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, undefined, { y: 1, x: 2 }], c: undefined }, é: 'x' })).toBe(
      '{"a":{"d":[3,null,{"x":2,"y":1}]},"b":1,"é":"x"}',
    );
    expect(canonicalJson({})).toBe('{}');
    expect(canonicalJson({ only: undefined })).toBe('{}');
    expect(canonicalJson([])).toBe('[]');
    expect(canonicalJson(undefined)).toBe('null');
  });

  it('writes exactly the text the stored hashes were made with, for any JSON value', () => {
    fc.assert(
      fc.property(json.value, (value) => {
        expect(canonicalJson(value)).toBe(definition(value));
      }),
      { numRuns: 2_000 },
    );
  });

  it('is the same text for the same object whatever the order its keys were added in', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 8 }), (obj) => {
        const reversed = Object.fromEntries(Object.entries(obj).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(obj));
      }),
    );
  });
});
