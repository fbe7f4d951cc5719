import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCategory, entryWorld, type EntryWorld } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';

/**
 * Issue 52: a manual journal line (POST /ledger/journal, CONTRACT §23) carries exactly one of debitCents or
 * creditCents. The published documents say so (a oneOf of two closed variants) and the service refuses what they
 * refuse: both questions are asked of the same lines.
 */
type Schema = Record<string, any>;
const DOCUMENTS = ['openapi.json', 'openapi-3.0.json'].map((file) => ({ file, doc: JSON.parse(readFileSync(file, 'utf8')) }));
const ref = (name: string) => `#/components/schemas/${name}`;

/** The schema with its `$ref`s put in place: a plain JSON Schema for a validator. */
function inlined(schema: Schema, components: Record<string, Schema>): Schema {
  return JSON.parse(JSON.stringify(schema), (_key, value) =>
    value && typeof value === 'object' && typeof value.$ref === 'string'
      ? inlined(components[value.$ref.replace('#/components/schemas/', '')]!, components)
      : value,
  );
}

const CATEGORY = '3f2b8c1e-5d4a-4e7b-9c21-8a6f0d3e1b57';
/** Lines and whether a line of that shape is one the service can accept (amounts as CONTRACT §23 states them). */
const LINES: [string, Record<string, unknown>, boolean][] = [
  ['a debit', { categoryId: CATEGORY, debitCents: 500 }, true],
  ['a credit with a description', { categoryId: CATEGORY, creditCents: 500, description: 'owner' }, true],
  ['both sides', { categoryId: CATEGORY, debitCents: 500, creditCents: 500 }, false],
  ['neither side', { categoryId: CATEGORY, description: 'nothing' }, false],
  ['a zero debit', { categoryId: CATEGORY, debitCents: 0 }, false],
  ['an unknown field', { categoryId: CATEGORY, debitCents: 500, memo: 'x' }, false],
];

describe('the documented journal line', () => {
  it.each(DOCUMENTS)('$file: the lines of POST /ledger/journal are a oneOf of a closed debit and a closed credit line', ({ doc }) => {
    const lines = doc.paths['/ledger/journal'].post.requestBody.content['application/json'].schema.properties.lines;
    expect(lines.items.$ref).toBe(ref('ManualJournalLine'));
    const components = doc.components.schemas as Record<string, Schema>;
    expect(components.ManualJournalLine!.oneOf.map((o: Schema) => o.$ref)).toEqual([
      ref('ManualJournalDebitLine'),
      ref('ManualJournalCreditLine'),
    ]);
    for (const [name, amount] of [
      ['ManualJournalDebitLine', 'debitCents'],
      ['ManualJournalCreditLine', 'creditCents'],
    ]) {
      const variant = components[name]!;
      expect(variant.additionalProperties, name).toBe(false);
      expect(Object.keys(variant.properties).sort(), name).toEqual([amount, 'categoryId', 'description'].sort());
      expect(variant.required.sort(), name).toEqual([amount, 'categoryId'].sort());
    }
  });

  it.each(DOCUMENTS)('$file: a JSON Schema validator takes a line with exactly one side, and no other', ({ doc }) => {
    const components = doc.components.schemas as Record<string, Schema>;
    const validator = z.fromJSONSchema(inlined(components.ManualJournalLine!, components));
    for (const [label, line, valid] of LINES) expect(validator.safeParse(line).success, label).toBe(valid);
  });
});

describe('the service refuses the lines the document refuses', () => {
  let api: Api;
  let w: EntryWorld;
  let cash: { id: string };
  let equity: { id: string };
  beforeAll(async () => {
    api = await startServer();
    w = await entryWorld(api);
    cash = await createCategory(w, { code: '1010', name: 'Cash', accountType: 'ASSET' });
    equity = await createCategory(w, { code: '3300', name: 'Capital', accountType: 'EQUITY' });
  });

  it.each(LINES)('%s', async (_label, line, valid) => {
    // the line under test on the cash account, balanced by a plain credit of the same amount when it is one
    const debit = { ...line, categoryId: cash.id };
    const res = await api.post(
      '/ledger/journal',
      {
        workspaceId: w.workspaceId,
        date: '2026-04-01',
        description: 'Capital paid in',
        lines:
          valid && 'creditCents' in line
            ? [debit, { categoryId: equity.id, debitCents: 500 }]
            : [debit, { categoryId: equity.id, creditCents: 500 }],
      },
      { token: w.token },
    );
    if (valid) expect(res.status, res.text).toBe(200);
    else expectErrorBody(res, 400, 'BAD_REQUEST');
  });
});
