import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NON_GRANTABLE_TO_KEYS } from '../../../shared/contracts/api-keys.js';
import { rateProblem } from '../../../shared/contracts/fx.js';
import { PERMISSIONS } from '../../../shared/permissions.js';
import { encodeCursor } from '../../../server/lib/page-cursor.js';

/**
 * The document says what the service refuses where JSON Schema can (issue 52), and says it as the
 * service does: each documented pattern or enum accepts what the service accepts and refuses
 * what it refuses.
 */

type Schema = { pattern?: string; enum?: string[]; items?: Schema; properties?: Record<string, Schema> };
type Doc = {
  paths: Record<
    string,
    Record<string, { requestBody?: { content: Record<string, { schema: Schema }> }; parameters?: { name: string; schema: Schema }[] }>
  >;
};
const doc = JSON.parse(readFileSync('openapi.json', 'utf8')) as Doc;
const body = (path: string, method: string) => doc.paths[path]![method]!.requestBody!.content['application/json']!.schema;

describe('documented refusals', () => {
  it('FX rate: the pattern refuses zero and more than 10 decimals, as the service does', () => {
    const pattern = new RegExp(body('/fx-rates', 'post').properties!.rate!.pattern!);
    const values = [
      '1',
      '0.0061',
      '1.50',
      '12.3456789012',
      '0.0000000001',
      '1.00000000000',
      '0',
      '0.0',
      '000',
      '1.12345678901',
      '0.00000000001',
      '.5',
      '1.',
      '-1',
      '1e3',
    ];
    for (const v of values) expect(pattern.test(v), v).toBe(rateProblem(v) === undefined);
  });

  it('API key permissions: the enum is what a key may hold', () => {
    const documented = body('/api-keys', 'post').properties!.permissions!.items!.enum!;
    expect([...documented].sort()).toEqual(PERMISSIONS.filter((p) => !NON_GRANTABLE_TO_KEYS.includes(p)).sort());
    for (const p of NON_GRANTABLE_TO_KEYS) expect(documented).not.toContain(p);
  });

  it('manual journal: 2 to 200 lines, as the service counts them (one line: 400, tests/books/write-routes.test.ts)', () => {
    const lines = body('/ledger/journal', 'post').properties!.lines as Schema & { minItems?: number; maxItems?: number };
    expect([lines.minItems, lines.maxItems]).toEqual([2, 200]);
  });

  it('cursor: every `cursor` parameter has a pattern that takes every cursor the service writes and refuses `0`', () => {
    const cursors = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).flatMap(([method, op]) =>
        (op.parameters ?? []).filter((p) => p.name === 'cursor').map((p) => ({ at: `${method} ${path}`, schema: p.schema })),
      ),
    );
    expect(cursors.map((c) => c.at).sort()).toEqual(['get /entries', 'get /ledger/accounts/{categoryId}/lines', 'get /ledger/journal']);
    for (const { at, schema } of cursors) {
      const pattern = new RegExp(schema.pattern!);
      expect(pattern.test(encodeCursor('scope', { key: '2026-01-01', id: 42 })), at).toBe(true);
      for (const bad of ['0', 'abc', 'a.b.c', 'a.']) expect(pattern.test(bad), `${at}: ${bad}`).toBe(false);
    }
  });
});
