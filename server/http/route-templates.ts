import type { Request } from 'express';
import { buildOpenApiDocument } from '../trpc/openapi.js';
import { appRouter } from '../trpc/router.js';

/** The label of a request that matches no known route (keeps label values bounded). */
export const UNMATCHED = 'unmatched';

/** A segment tree of the documented paths of one method: literal segments before `{param}` ones. */
type Node = { literals: Map<string, Node>; param?: Node; template?: string };

/** Routes that are neither in openapi.json nor tRPC procedures. */
const OPERATIONAL_PREFIXES: readonly [prefix: string, label: string][] = [['/docs/assets/', '/docs/assets/*']];

let treesByMethod: Map<string, Node> | undefined;
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

/** Every documented operation (tRPC-OpenAPI procedures and express routes alike), one tree per method. */
function tree(method: string): Node | undefined {
  if (!treesByMethod) {
    treesByMethod = new Map();
    for (const [path, item] of Object.entries(buildOpenApiDocument().paths ?? {})) {
      for (const m of Object.keys(item ?? {})) {
        const key = m.toUpperCase();
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
