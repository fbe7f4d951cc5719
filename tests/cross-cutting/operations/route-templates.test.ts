import { describe, expect, it } from 'vitest';
import { documentedTemplate } from '../../../server/http/route-templates.js';
import { buildOpenApiDocument } from '../../../server/trpc/openapi.js';

const operations = Object.entries(buildOpenApiDocument().paths ?? {}).flatMap(([path, item]) =>
  Object.keys(item ?? {}).map((method) => ({ method: method.toUpperCase(), path })),
);
const concrete = (template: string, value: string) => template.replace(/\{[^}]+\}/g, value);

/** The rule written as the metric labels need it: a `{param}` is one non-empty segment; of several matches the most literal wins. */
function expected(method: string, path: string): string | undefined {
  const matching = operations
    .filter((o) => o.method === method)
    .filter((o) => new RegExp(`^${o.path.replace(/\{[^}]+\}/g, '[^/]+')}/?$`).test(path))
    .map((o) => ({ path: o.path, literals: o.path.split('/').filter((s) => s && !s.startsWith('{')).length }))
    .sort((a, b) => b.literals - a.literals);
  return matching[0]?.path;
}

describe('route templates of metric labels (server/http/route-templates.ts)', () => {
  it('labels every documented operation by its template, with and without a trailing slash', () => {
    expect(operations.length).toBeGreaterThan(100);
    for (const { method, path } of operations) {
      expect(documentedTemplate(method, concrete(path, '4242'))).toBe(path);
      expect(documentedTemplate(method, `${concrete(path, 'a1b2')}/`)).toBe(path);
    }
  });

  it('prefers a literal segment over a parameter where both match', () => {
    const cases: [string, string, string][] = [
      ['POST', '/rules/preview', '/rules/preview'],
      ['GET', '/rules/17', '/rules/{id}'],
      ['POST', '/accounting/reviews/batch/approve', '/accounting/reviews/batch/approve'],
      ['PATCH', '/accounting/reviews/0b9f/approve', '/accounting/reviews/{id}/approve'],
      ['POST', '/entries/5/documents/upload', '/entries/{entryId}/documents/upload'],
    ];
    for (const [method, path, template] of cases) {
      expect(expected(method, path)).toBe(template);
      expect(documentedTemplate(method, path)).toBe(template);
    }
  });

  it('matches what the most-literal rule matches and nothing else, for paths near the documented ones', () => {
    const probes = operations.flatMap(({ path }) => [
      concrete(path, '9'),
      `${concrete(path, '9')}/extra`,
      concrete(path, ''),
      concrete(path, '9').replace(/\/[^/]+$/, ''),
      `${concrete(path, '9')}//`,
    ]);
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      for (const path of probes) expect(documentedTemplate(method, path), `${method} ${path}`).toBe(expected(method, path));
    }
    expect(documentedTemplate('GET', '/no/such/route')).toBeUndefined();
    expect(documentedTemplate('GET', 'entries')).toBeUndefined();
  });
});
