import fc from 'fast-check';

/**
 * Values for the fuzzer: valid-ish arbitraries derived from the OpenAPI JSON schemas, real ids
 * of a seeded workspace mixed in by field name, and hostile values that replace them.
 */

export type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
};

/** Real values by field name (ids of existing objects), mixed into the generated ones. */
export type Pools = Record<string, readonly unknown[]>;

const MAX_ARRAY = 4;
const MAX_STRING = 40;

/** Strings that have broken services before: injections, control and wide characters, traversal, … */
export const HOSTILE_STRINGS: readonly string[] = [
  "' OR '1'='1",
  '1; DROP TABLE entries; --',
  "'); SELECT pg_sleep(0); --",
  '" OR ""="',
  '{"$gt": ""}',
  '{"$where": "1 == 1"}',
  'a\u0000b',
  '\u0000',
  '%00',
  '%',
  '_',
  '%_%',
  '\\',
  '\\x00',
  '../../../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  '__proto__',
  'constructor',
  'prototype',
  '<script>alert(1)</script>',
  '${7*7}',
  '{{7*7}}',
  '\u202Eevil\u202C',
  '\u200B\u200D\uFEFF',
  '😀💸🏦',
  '\uD800',
  'é'.normalize('NFD'),
  ' ',
  '',
  '\t\r\n',
  'x'.repeat(10_000),
  '9'.repeat(400),
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '1e308',
  '0x7fffffff',
  '9223372036854775808',
  '-9223372036854775809',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '0000-00-00',
  '2026-02-30',
  '99999-01-01',
  '+275760-09-13',
  '1970-01-01T00:00:00Z',
  'infinity',
  '-infinity',
  'epoch',
  'today',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '=cmd|"/c calc"!A1',
  '@SUM(1+1)',
];

export const HUGE_NUMBERS: readonly number[] = [
  1e308,
  -1e308,
  -0,
  2 ** 63,
  -(2 ** 63),
  2 ** 53 + 2,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
  2 ** 31,
  -(2 ** 31) - 1,
  1_000_000_000_000_001,
  0.5,
  -1,
  0,
  1e-320,
  123.456,
];

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];

/** Privileged or server-owned fields a client must never be able to set (mass assignment). */
export const PRIVILEGED_FIELDS: Record<string, unknown> = {
  id: 1,
  workspaceId: 999_999,
  createdBy: '00000000-0000-4000-8000-000000000000',
  createdAt: '2000-01-01T00:00:00.000Z',
  updatedAt: '2000-01-01T00:00:00.000Z',
  status: 'COMPLETED',
  entryStatus: 'COMPLETED',
  isAdmin: true,
  role: 'ADMIN',
  permissions: ['user.edit'],
  passwordHash: 'x',
  apiKeyHash: 'x',
  keyHash: 'x',
  approvedBy: '00000000-0000-4000-8000-000000000000',
  reconciledBy: '00000000-0000-4000-8000-000000000000',
  version: 99,
  isReconciled: true,
  actorType: 'SYSTEM',
  isActive: true,
};

/** Sets `key` as an own, enumerable property (so `__proto__` becomes a JSON key, not the prototype). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** JSON values of every shape, for fields that are supposed to be something else. */
export const wrongTypeValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, [], {}, [[[[[]]]]], { a: { b: { c: {} } } }, [1, 'a', null], ''),
  fc.constantFrom(...HUGE_NUMBERS),
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.double(),
  fc.dictionary(fc.constantFrom('a', '$gt', '__proto__', 'id'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);

/** Any hostile value: strings, numbers, wrong types. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<unknown>(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(...HUGE_NUMBERS) },
  { weight: 2, arbitrary: wrongTypeValue },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
);

/** A field name that is not in the schema: privileged fields, prototype keys, random ones. */
export const unknownKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...Object.keys(PRIVILEGED_FIELDS), ...PROTO_KEYS, 'id', 'workspaceId', 'isAdmin'),
  fc.string({ minLength: 1, maxLength: 12 }),
);

function isoDate(min: number, max: number): fc.Arbitrary<string> {
  return fc.integer({ min, max }).map((days) => new Date(Date.UTC(2000, 0, 1) + days * 86_400_000).toISOString().slice(0, 10));
}

const dateArb = fc.oneof({ weight: 5, arbitrary: isoDate(8_000, 10_000) }, { weight: 1, arbitrary: isoDate(-700_000, 2_900_000) });
const dateTimeArb = fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2100, 0, 1) }).map((ms) => new Date(ms).toISOString());

function poolFor(name: string | undefined, pools: Pools): readonly unknown[] | undefined {
  if (!name) return undefined;
  return pools[name] ?? pools[name.replace(/s$/, '')];
}

function integerArb(s: JsonSchema): fc.Arbitrary<number> {
  const min = s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : (s.minimum ?? -1_000_000);
  const max = s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : (s.maximum ?? 1_000_000_000);
  const lo = Math.max(min, Number.MIN_SAFE_INTEGER);
  const hi = Math.min(max, Number.MAX_SAFE_INTEGER);
  return fc.oneof(
    fc.integer({ min: lo, max: Math.min(hi, lo + 10_000) }),
    fc.maxSafeInteger().map((n) => lo + (Math.abs(n) % (hi - lo + 1))),
  );
}

function stringArb(s: JsonSchema): fc.Arbitrary<string> {
  if (s.format === 'date') return dateArb;
  if (s.format === 'date-time') return dateTimeArb;
  if (s.format === 'uuid') return fc.uuid({ version: 4 });
  if (s.format === 'email') return fc.emailAddress();
  if (s.pattern) return fc.stringMatching(new RegExp(s.pattern));
  const minLength = s.minLength ?? 0;
  return fc.string({ minLength, maxLength: Math.max(minLength, Math.min(s.maxLength ?? MAX_STRING, MAX_STRING)) });
}

function objectArb(s: JsonSchema, pools: Pools): fc.Arbitrary<Record<string, unknown>> {
  const props = s.properties ?? {};
  const required = new Set(s.required ?? []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [k, v] of Object.entries(props)) model[k] = schemaArb(v, pools, k);
  const known = fc.record(model, { requiredKeys: Object.keys(props).filter((k) => required.has(k)) });
  if (s.additionalProperties === false || s.additionalProperties === undefined || Object.keys(props).length) {
    if (s.additionalProperties && typeof s.additionalProperties === 'object' && !Object.keys(props).length) {
      return fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
    }
    return known;
  }
  return fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
}

/** A value that (mostly) satisfies the schema; ids come from `pools` most of the time. */
export function schemaArb(s: JsonSchema, pools: Pools, name?: string): fc.Arbitrary<unknown> {
  const variants = s.anyOf ?? s.oneOf;
  if (variants) return fc.oneof(...variants.map((v) => schemaArb(v, pools, name)));
  if (s.allOf?.length) return schemaArb(s.allOf[0], pools, name);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  const pool = type === 'array' ? undefined : poolFor(name, pools);
  const base = ((): fc.Arbitrary<unknown> => {
    switch (type) {
      case 'integer':
        return integerArb(s);
      case 'number':
        return fc.double({ min: s.minimum ?? -1e9, max: s.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true });
      case 'string':
        return stringArb(s);
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array':
        return fc.array(schemaArb(s.items ?? {}, pools, name), {
          minLength: s.minItems ?? 0,
          maxLength: Math.max(s.minItems ?? 0, Math.min(s.maxItems ?? MAX_ARRAY, MAX_ARRAY)),
        });
      case 'object':
        return objectArb(s, pools);
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  })();
  return pool?.length ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...pool) }, { weight: 1, arbitrary: base }) : base;
}
