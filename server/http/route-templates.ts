import type { Request } from 'express';
import { buildOpenApiDocument } from '../trpc/openapi.js';
import { appRouter } from '../trpc/router.js';

/** The label of a request that matches no known route (keeps label values bounded). */
export const UNMATCHED = 'unmatched';

type Template = { path: string; pattern: RegExp; literals: number };

/** Routes that are neither in openapi.json nor tRPC procedures. */
const OPERATIONAL_PREFIXES: readonly [prefix: string, label: string][] = [['/docs/assets/', '/docs/assets/*']];

let templatesByMethod: Map<string, Template[]> | undefined;
let procedures: Set<string> | undefined;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function compile(path: string): Template {
  const segments = path.split('/').filter(Boolean);
  const source = segments.map((s) => (/^\{[^}]+\}$/.test(s) ? '[^/]+' : escapeRegExp(s))).join('/');
  return { path, pattern: new RegExp(`^/${source}/?$`), literals: segments.filter((s) => !s.startsWith('{')).length };
}

/** Every documented operation (tRPC-OpenAPI procedures and express routes alike), most literal first. */
function templates(method: string): Template[] {
  if (!templatesByMethod) {
    templatesByMethod = new Map();
    for (const [path, item] of Object.entries(buildOpenApiDocument().paths ?? {})) {
      for (const m of Object.keys(item ?? {})) {
        const list = templatesByMethod.get(m.toUpperCase()) ?? [];
        list.push(compile(path));
        templatesByMethod.set(m.toUpperCase(), list);
      }
    }
    for (const list of templatesByMethod.values()) list.sort((a, b) => b.literals - a.literals);
  }
  return templatesByMethod.get(method) ?? [];
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
  for (const t of templates(method)) if (t.pattern.test(path)) return t.path;
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
