import type { Request } from 'express';
import { buildOpenApiDocument } from '../trpc/openapi.js';
import { appRouter } from '../trpc/router.js';

/** The label of a request that matches no known route (keeps label values bounded). */
export const UNMATCHED = 'unmatched';

/** A segment tree of the documented paths of one method: literal segments before `{param}` ones. */
type Node = { literals: Map<string, Node>; param?: Node; template?: string };
type Parameter = { in?: string; name?: string; $ref?: string; schema?: ParameterSchema };
type ParameterSchema = {
  type?: string;
  format?: string;
  pattern?: string;
  enum?: unknown[];
  minLength?: number;
  items?: ParameterSchema;
  $ref?: string;
};
type Document = ReturnType<typeof buildOpenApiDocument>;
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** Routes that are neither in openapi.json nor tRPC procedures. */
const OPERATIONAL_PREFIXES: readonly [prefix: string, label: string][] = [['/docs/assets/', '/docs/assets/*']];

let treesByMethod: Map<string, Node> | undefined;
/** What the query check needs of each documented operation, by `METHOD template`. */
export type QueryContract = {
  names: ReadonlySet<string>;
  /** the parameters whose schema refuses an empty value (a date, a number, an enum…): `?toDate=` is a 400, not absent */
  notEmpty: ReadonlySet<string>;
  /** the parameters that take one value (every one whose schema is not an array): bracketed or repeated, a 400 */
  single: ReadonlySet<string>;
  credential: 'none' | 'bearer' | 'own';
};
const queryContracts = new Map<string, QueryContract>();
let procedures: Set<string> | undefined;

const newNode = (): Node => ({ literals: new Map() });

function insert(root: Node, path: string): void {
  let node = root;
  for (const segment of path.split('/').filter(Boolean)) {
    if (/^\{[^}]+\}$/.test(segment)) node = node.param ??= newNode();
    else {
      const next = node.literals.get(segment) ?? newNode();
      node.literals.set(segment, next);
      node = next;
    }
  }
  node.template = path;
}

/** The `in: query` parameters of an operation, its path item's included, `$ref`s resolved. */
function queryParameters(doc: Document, item: unknown, operation: unknown): Parameter[] {
  const listed = [
    ...(((item as { parameters?: Parameter[] }).parameters ?? []) as Parameter[]),
    ...(((operation as { parameters?: Parameter[] }).parameters ?? []) as Parameter[]),
  ];
  const components = (doc.components?.parameters ?? {}) as Record<string, Parameter>;
  const resolved = listed.map((p) => (p.$ref ? (components[p.$ref.replace('#/components/parameters/', '')] ?? p) : p));
  return resolved.filter((p) => p.in === 'query');
}

/** Whether an empty value satisfies the parameter's schema (a plain string does; a date, number or enum does not). */
function acceptsEmpty(doc: Document, schema: ParameterSchema | undefined): boolean {
  const components = (doc.components?.schemas ?? {}) as Record<string, ParameterSchema>;
  let s = schema;
  while (s?.$ref) s = components[s.$ref.replace('#/components/schemas/', '')];
  if (!s) return true;
  if (s.type === 'array') return acceptsEmpty(doc, s.items);
  if (s.type !== 'string' || s.format !== undefined || s.enum !== undefined || (s.minLength ?? 0) > 0) return false;
  return s.pattern === undefined || new RegExp(s.pattern, 'u').test('');
}

/** Whether the parameter's schema is a list (`tagIds`: comma, repeated and bracket forms all name it). */
function isList(doc: Document, schema: ParameterSchema | undefined): boolean {
  const components = (doc.components?.schemas ?? {}) as Record<string, ParameterSchema>;
  let s = schema;
  while (s?.$ref) s = components[s.$ref.replace('#/components/schemas/', '')];
  return s?.type === 'array';
}

/** Every documented operation (tRPC-OpenAPI procedures and express routes alike), one tree per method. */
function tree(method: string): Node | undefined {
  if (!treesByMethod) {
    treesByMethod = new Map();
    const doc = buildOpenApiDocument();
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      for (const [m, operation] of Object.entries(item ?? {})) {
        if (!HTTP_METHODS.has(m)) continue;
        const key = m.toUpperCase();
        const security = (operation as { security?: Record<string, unknown>[] }).security ?? [];
        const parameters = queryParameters(doc, item, operation);
        queryContracts.set(`${key} ${path}`, {
          names: new Set(parameters.map((p) => String(p.name))),
          notEmpty: new Set(parameters.filter((p) => !acceptsEmpty(doc, p.schema)).map((p) => String(p.name))),
          single: new Set(parameters.filter((p) => !isList(doc, p.schema)).map((p) => String(p.name))),
          credential: security.some((s) => 'Authorization' in s)
            ? 'bearer'
            : security.some((s) => Object.keys(s).length > 0)
              ? 'own'
              : 'none',
        });
        const root = treesByMethod.get(key) ?? newNode();
        treesByMethod.set(key, root);
        insert(root, path);
      }
    }
  }
  return treesByMethod.get(method);
}

/** The template matching `segments[i..]` below `node`: a literal segment wins over a parameter (`/rules/preview` over `/rules/{id}`). */
function match(node: Node, segments: string[], i: number): string | undefined {
  if (i === segments.length) return node.template;
  const literal = node.literals.get(segments[i]);
  const viaLiteral = literal && match(literal, segments, i + 1);
  if (viaLiteral) return viaLiteral;
  return node.param && segments[i] !== '' ? match(node.param, segments, i + 1) : undefined;
}

/** The documented template of a path (one optional trailing slash), or undefined. */
export function documentedTemplate(method: string, path: string): string | undefined {
  const root = tree(method);
  if (!root || !path.startsWith('/')) return undefined;
  const inner = path.endsWith('/') ? path.slice(1, -1) : path.slice(1);
  return match(root, inner === '' ? [] : inner.split('/'), 0);
}

/** The query parameters a documented operation takes and the credential it checks (none, a bearer token, its own); undefined for a path no operation documents. */
export function documentedQueryContract(method: string, path: string): QueryContract | undefined {
  const template = documentedTemplate(method, path);
  return template === undefined ? undefined : queryContracts.get(`${method} ${template}`);
}

function trpcLabel(path: string): string {
  procedures ??= new Set(Object.keys(appRouter._def.procedures));
  const name = decodeURIComponent(path.slice('/trpc/'.length));
  if (name.includes(',')) return name.split(',').every((n) => procedures!.has(n)) ? '/trpc/{batch}' : UNMATCHED;
  return procedures.has(name) ? `/trpc/${name}` : UNMATCHED;
}

/**
 * The route template of a request for metric labels: the OpenAPI path (`/entries/{id}`), the
 * tRPC procedure, or the express route pattern, never the raw URL (ids would explode the series).
 * `path` is the request's pathname as received (routers mounted on a prefix rewrite `req.path`).
 */
export function routeTemplateOf(req: Request, path: string): string {
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  const documented = documentedTemplate(method, path);
  if (documented) return documented;
  if (path.startsWith('/trpc/')) {
    try {
      return trpcLabel(path);
    } catch {
      return UNMATCHED;
    }
  }
  const route = (req as Request & { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return `${req.baseUrl}${route.path}`;
  for (const [prefix, label] of OPERATIONAL_PREFIXES) if (path.startsWith(prefix)) return label;
  return UNMATCHED;
}
