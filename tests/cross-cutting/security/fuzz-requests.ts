import fc from 'fast-check';
import type { Operation } from './fuzz-operations.js';
import { HOSTILE_STRINGS, hostileValue, schemaArb, setOwn, unknownKey, wrongTypeValue, type JsonSchema } from './fuzz-values.js';
import { idPoolFor, type FuzzWorld } from './fuzz-world.js';

/** A request ready to send: `body` is the raw payload (JSON text, bytes or FormData). */
export type FuzzRequest = {
  kind: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer | FormData;
  /** an answer the contract fixes for this request (beyond "no 5xx, contract error bodies") */
  expect?: { status: number; message: RegExp };
};

/** CONTRACT §1: a parameter that takes one value, bracketed (`workspaceId[]=1`) or given twice, is a 400 naming it. */
const ONE_VALUE = { status: 400, message: /takes one value/ };

const MIB = 1024 * 1024;

type Mutation =
  | 'valid'
  | 'hostileBody'
  | 'hostileQuery'
  | 'hostilePath'
  | 'unknownField'
  | 'missingRequired'
  | 'bodyShape'
  | 'malformedJson'
  | 'wrongContentType'
  | 'badAuth'
  | 'hostileHeader';

const MUTATIONS: { weight: number; arbitrary: fc.Arbitrary<Mutation> }[] = (
  [
    ['valid', 30],
    ['hostileBody', 16],
    ['hostileQuery', 10],
    ['hostilePath', 8],
    ['unknownField', 9],
    ['missingRequired', 6],
    ['bodyShape', 5],
    ['malformedJson', 4],
    ['wrongContentType', 4],
    ['badAuth', 4],
    ['hostileHeader', 4],
  ] as [Mutation, number][]
).map(([m, weight]) => ({ weight, arbitrary: fc.constant(m) }));

function toParamString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return '';
  if (typeof v === 'number' && Object.is(v, -0)) return '-0';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** Lone UTF-16 surrogates cannot be percent-encoded: they become U+FFFD, as a browser would send them. */
const wellFormed = (s: string) => s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

function paramArb(schema: JsonSchema, pool: readonly unknown[], name: string, world: FuzzWorld): fc.Arbitrary<unknown> {
  const generated = schemaArb(schema, world.pools, name);
  return pool.length ? fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...pool) }, { weight: 2, arbitrary: generated }) : generated;
}

/** Every place in a JSON value where a field could be replaced, as key paths. */
function leafPaths(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (prefix.length) out.push(prefix);
  if (Array.isArray(value)) value.forEach((v, i) => leafPaths(v, [...prefix, i], out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) leafPaths(v, [...prefix, k], out);
  return out;
}

function setAt(root: unknown, path: (string | number)[], value: unknown): void {
  let cur = root as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if (Array.isArray(cur)) cur[last as number] = value;
  else setOwn(cur, String(last), value);
}

const FILE_BYTES: fc.Arbitrary<Buffer> = fc.oneof(
  fc.constant(Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n')),
  fc.constant(Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 1)])),
  fc.constant(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46])),
  fc.constant(Buffer.from('MZ\x90\x00 not really an exe')),
  fc.constant(Buffer.alloc(0)),
  fc.uint8Array({ maxLength: 256 }).map((a) => Buffer.from(a)),
  fc.string({ maxLength: 200 }).map((s) => Buffer.from(s)),
);

const multipartArb = (schema: JsonSchema) =>
  fc.record({
    file: fc.option(
      fc.record({
        bytes: FILE_BYTES,
        filename: fc.oneof(
          fc.constantFrom('receipt.pdf', 'a.png', 'x', '../../etc/passwd', 'a\u0000b.pdf', '😀.pdf'),
          fc.string({ maxLength: 30 }),
        ),
        type: fc.constantFrom(
          'application/pdf',
          'image/png',
          'image/jpeg',
          'text/plain',
          'application/octet-stream',
          'application/x-msdownload',
          '',
        ),
      }),
      { freq: 6 },
    ),
    files: fc.integer({ min: 1, max: 3 }),
    documentType: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...((schema.properties?.documentType?.enum as string[]) ?? ['BASIS'])) },
      { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_STRINGS.filter((s) => s.length < 500)) },
    ),
    extra: fc.option(fc.tuple(unknownKey, fc.string({ maxLength: 20 })), { freq: 4 }),
  });

function multipartBody(m: {
  file: { bytes: Buffer; filename: string; type: string } | null;
  files: number;
  documentType: string | null;
  extra: [string, string] | null;
}): FormData {
  const form = new FormData();
  if (m.documentType !== null) form.append('documentType', m.documentType);
  if (m.extra) form.append(m.extra[0], m.extra[1]);
  if (m.file) {
    for (let i = 0; i < m.files; i++) form.append('file', new Blob([new Uint8Array(m.file.bytes)], { type: m.file.type }), m.file.filename);
  }
  return form;
}

/** Requests built for every operation before the random ones: oversized, malformed and unauthenticated. */
export function specialRequests(op: Operation, world: FuzzWorld): FuzzRequest[] {
  const url = concretePath(op, world);
  const auth = authHeaders(op, world);
  const out: FuzzRequest[] = [{ kind: 'noAuth', method: op.method, url, headers: {} }, ...singleValuedAsLists(op, world)];
  if (op.body?.kind === 'json') {
    const limit = op.path === '/api/v1/ingest' ? 10 * MIB : MIB;
    const big = JSON.stringify({ entries: [{ description: 'x'.repeat(limit + 1024) }] });
    const props = Object.keys(op.body.schema.properties ?? {});
    const literal = (lit: string) => `{${props.map((k) => `${JSON.stringify(k)}:${lit}`).join(',')}}`;
    const json = { ...auth, 'Content-Type': 'application/json' };
    out.push(
      { kind: 'infinityLiterals', method: op.method, url, headers: json, body: literal('1e999') },
      { kind: 'bigIntLiterals', method: op.method, url, headers: json, body: literal('123456789012345678901234567890') },
      { kind: 'negativeZeroLiterals', method: op.method, url, headers: json, body: literal('-0.0') },
      { kind: 'deepObject', method: op.method, url, headers: json, body: '{"a":'.repeat(3000) + '1' + '}'.repeat(3000) },
      { kind: 'oversized', method: op.method, url, headers: { ...auth, 'Content-Type': 'application/json' }, body: big },
      { kind: 'malformedJson', method: op.method, url, headers: { ...auth, 'Content-Type': 'application/json' }, body: '{"a":' },
      { kind: 'jsonArray', method: op.method, url, headers: { ...auth, 'Content-Type': 'application/json' }, body: '[]' },
      {
        kind: 'deepJson',
        method: op.method,
        url,
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: '['.repeat(5000) + ']'.repeat(5000),
      },
      {
        kind: 'protoPollution',
        method: op.method,
        url,
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: '{"__proto__":{"isAdmin":true,"polluted":1},"constructor":{"prototype":{"polluted":1}}}',
      },
    );
  }
  if (op.body?.kind === 'multipart') {
    const type = (boundary: string) => ({ ...auth, 'Content-Type': `multipart/form-data; boundary=${boundary}` });
    out.push(
      { kind: 'multipartNoBoundary', method: op.method, url, headers: { ...auth, 'Content-Type': 'multipart/form-data' }, body: 'abc' },
      { kind: 'multipartGarbage', method: op.method, url, headers: type('XyZ'), body: '--XyZ\r\nContent-Disposition: form-da' },
      {
        kind: 'multipartTruncated',
        method: op.method,
        url,
        headers: type('XyZ'),
        body: '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4 trunc',
      },
      {
        kind: 'multipartHugeField',
        method: op.method,
        url,
        headers: type('XyZ'),
        body: `--XyZ\r\nContent-Disposition: form-data; name="documentType"\r\n\r\n${'B'.repeat(2 * MIB)}\r\n--XyZ--\r\n`,
      },
      { kind: 'multipartAsJson', method: op.method, url, headers: { ...auth, 'Content-Type': 'application/json' }, body: '{"file":"x"}' },
      {
        kind: 'oversizedUpload',
        method: op.method,
        url,
        headers: auth,
        body: multipartBody({
          file: {
            bytes: Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(26 * MIB, 0x20)]),
            filename: 'big.pdf',
            type: 'application/pdf',
          },
          files: 1,
          documentType: 'BASIS',
          extra: null,
        }),
      },
    );
  }
  return out;
}

/**
 * Every single-valued query parameter of the operation in the bracket form, with a value it takes (a real id where the
 * world has one), and the first of them given twice: each must be the 400 of CONTRACT §1, whatever the value.
 */
function singleValuedAsLists(op: Operation, world: FuzzWorld): FuzzRequest[] {
  const single = op.queryParams.filter((q) => q.schema.type !== 'array');
  const auth = authHeaders(op, world);
  const valueOf = (q: Operation['queryParams'][number]) =>
    String(world.pools[q.name]?.[0] ?? fc.sample(schemaArb(q.schema, world.pools, q.name), { seed: 1, numRuns: 1 })[0]);
  const urlWith = (q: Operation['queryParams'][number], given: string) => {
    const rest = concretePath({ ...op, queryParams: op.queryParams.filter((x) => x !== q) }, world);
    return `${rest}${rest.includes('?') ? '&' : '?'}${given}`;
  };
  const out: FuzzRequest[] = single.map((q) => ({
    kind: 'bracketedSingle',
    method: op.method,
    url: urlWith(q, `${encodeURIComponent(q.name)}[]=${encodeURIComponent(valueOf(q))}`),
    headers: auth,
    expect: ONE_VALUE,
  }));
  const [first] = single;
  if (first) {
    const pair = `${encodeURIComponent(first.name)}=${encodeURIComponent(valueOf(first))}`;
    out.push({ kind: 'repeatedSingle', method: op.method, url: urlWith(first, `${pair}&${pair}`), headers: auth, expect: ONE_VALUE });
  }
  return out;
}

function authHeaders(op: Operation, world: FuzzWorld): Record<string, string> {
  if (op.auth === 'apiKey') return { 'X-API-Key': world.apiKey };
  if (op.path.startsWith('/webhooks/')) return { 'X-Webhook-Secret': world.webhookSecret };
  if (op.auth === 'bearer') return { Authorization: `Bearer ${op.path === '/auth/logout' ? world.logoutToken : world.token}` };
  return {};
}

/** The operation's path with real ids and the required query parameters. */
export function concretePath(op: Operation, world: FuzzWorld): string {
  let path = op.path;
  for (const p of op.pathParams) {
    const pool = p.name === 'id' ? idPoolFor(world, op.path) : (world.pools[p.name] ?? []);
    path = path.replace(`{${p.name}}`, encodeURIComponent(String(pool[0] ?? 1)));
  }
  const query = new URLSearchParams();
  for (const q of op.queryParams) if (q.required) query.set(q.name, String(world.pools[q.name]?.[0] ?? world.workspaceId));
  return query.size ? `${path}?${query}` : path;
}

/** Random requests for one operation: valid-ish inputs from its schemas, then one mutation each. */
export function requestArb(op: Operation, world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const pathArbs: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of op.pathParams) {
    const pool = p.name === 'id' ? idPoolFor(world, op.path) : (world.pools[p.name] ?? []);
    pathArbs[p.name] = paramArb(p.schema, pool, p.name, world);
  }
  const queryArbs: Record<string, fc.Arbitrary<unknown>> = {};
  for (const q of op.queryParams) queryArbs[q.name] = paramArb(q.schema, world.pools[q.name] ?? [], q.name, world);
  const requiredQuery = op.queryParams.filter((q) => q.required).map((q) => q.name);
  const body: fc.Arbitrary<unknown> =
    op.body?.kind === 'json'
      ? schemaArb(op.body.schema, world.pools)
      : op.body?.kind === 'multipart'
        ? multipartArb(op.body.schema)
        : fc.constant(undefined);

  return fc
    .record({
      path: fc.record(pathArbs),
      query: fc.record(queryArbs, { requiredKeys: requiredQuery }),
      body,
      mutation: fc.oneof(...MUTATIONS),
      hostile: hostileValue,
      extraKey: unknownKey,
      shape: wrongTypeValue,
      pick: fc.nat(),
      arrayStyle: fc.constantFrom('repeat', 'comma', 'brackets'),
      webhookSecret: fc.constantFrom('right', 'right', 'right', 'wrong', 'none'),
    })
    .map((g) => buildRequest(op, world, g));
}

type Generated = {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  mutation: Mutation;
  hostile: unknown;
  extraKey: string;
  shape: unknown;
  pick: number;
  arrayStyle: 'repeat' | 'comma' | 'brackets';
  webhookSecret: 'right' | 'wrong' | 'none';
};

function buildRequest(op: Operation, world: FuzzWorld, g: Generated): FuzzRequest {
  const m = g.mutation;
  const pathValues = { ...g.path };
  const names = Object.keys(pathValues);
  if (m === 'hostilePath' && names.length) pathValues[names[g.pick % names.length]] = g.hostile;
  let path = op.path;
  for (const [k, v] of Object.entries(pathValues)) path = path.replace(`{${k}}`, encodeURIComponent(wellFormed(toParamString(v))));

  const query = { ...g.query };
  if (m === 'hostileQuery') {
    const qn = op.queryParams.map((q) => q.name);
    const target = qn.length && g.pick % 4 !== 0 ? qn[g.pick % qn.length] : g.extraKey;
    setOwn(query, target, g.hostile);
  }
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (Array.isArray(v) && g.arrayStyle !== 'comma')
      v.forEach((x) => search.append(g.arrayStyle === 'brackets' ? `${k}[]` : k, toParamString(x)));
    else if (Array.isArray(v)) search.append(k, v.map(toParamString).join(','));
    else search.append(k, toParamString(v));
  }
  const url = search.size ? `${path}?${search}` : path;

  const headers: Record<string, string> = authHeaders(op, world);
  if (m === 'badAuth') {
    delete headers.Authorization;
    delete headers['X-API-Key'];
    const bad = ['Bearer', 'Bearer x.y.z', `Bearer ${world.token}x`, 'Basic YWRtaW46YWRtaW4=', `bearer ${'a'.repeat(5000)}`, 'Bearer ..'];
    headers.Authorization = bad[g.pick % bad.length];
    if (op.auth === 'apiKey')
      headers['X-API-Key'] = ['', 'fes_live_x', `${world.apiKey}x`, 'fes_live_AAAAAAAA_' + 'B'.repeat(40)][g.pick % 4];
  }
  if (op.path.startsWith('/webhooks/')) {
    delete headers['X-Webhook-Secret'];
    if (g.webhookSecret === 'right') headers['X-Webhook-Secret'] = world.webhookSecret;
    if (g.webhookSecret === 'wrong')
      headers['X-Webhook-Secret'] = toParamString(g.hostile)
        .replace(/[^\x20-\x7e]/g, '')
        .slice(0, 200);
    if (g.pick % 5 === 0) headers['intuit-signature'] = 'c2lnbmF0dXJl';
  }
  if (m === 'hostileHeader') {
    const value = toParamString(g.hostile)
      .replace(/[^\x20-\x7e]/g, '?')
      .slice(0, 4000);
    headers[['Idempotency-Key', 'X-Request-Id', 'Accept', 'Content-Type'][g.pick % 4]] = value;
  }

  if (op.body?.kind === 'multipart') {
    if (m === 'wrongContentType')
      return { kind: m, method: op.method, url, headers: { ...headers, 'Content-Type': 'text/plain' }, body: 'file=x' };
    return { kind: m, method: op.method, url, headers, body: multipartBody(g.body as Parameters<typeof multipartBody>[0]) };
  }
  if (!op.body) {
    if ((m === 'bodyShape' || m === 'malformedJson') && op.method !== 'GET')
      return {
        kind: m,
        method: op.method,
        url,
        headers: { 'Content-Type': 'application/json', ...headers },
        body: m === 'bodyShape' ? (JSON.stringify(g.shape) ?? 'null') : '{',
      };
    return { kind: m, method: op.method, url, headers };
  }

  let value: unknown = structuredCloneJson(g.body);
  if (m === 'hostileBody') {
    const paths = leafPaths(value);
    if (paths.length) setAt(value, paths[g.pick % paths.length], g.hostile);
    else if (value && typeof value === 'object')
      setOwn(value as Record<string, unknown>, Object.keys(op.body.schema.properties ?? { x: 1 })[0], g.hostile);
  }
  // only into the strict top-level body: free-form objects (a connection's config) keep and echo any key
  if (m === 'unknownField' && value && typeof value === 'object' && !Array.isArray(value)) {
    setOwn(value as Record<string, unknown>, g.extraKey, g.hostile);
  }
  if (m === 'missingRequired' && value && typeof value === 'object') {
    const required = op.body.schema.required ?? [];
    if (required.length) delete (value as Record<string, unknown>)[required[g.pick % required.length]];
  }
  if (m === 'bodyShape') value = g.shape;
  let text = JSON.stringify(value) ?? '';
  let contentType = 'application/json';
  if (m === 'malformedJson') text = ['{', '{"a":1,}', "{'a':1}", '{"a":1}{"b":2}', 'nul', '\u0000', '{"a":"\\uZZZZ"}', '"'][g.pick % 8];
  if (m === 'wrongContentType')
    contentType = ['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16'][g.pick % 4];
  return { kind: m, method: op.method, url, headers: { 'Content-Type': contentType, ...headers }, body: text };
}

/** A JSON-safe deep copy that keeps own `__proto__` keys. */
function structuredCloneJson(v: unknown): unknown {
  if (v === undefined) return undefined;
  return JSON.parse(JSON.stringify(v));
}
