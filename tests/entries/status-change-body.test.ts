import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEntry, entryIn, entryWorld, type EntryWorld } from '../support/factories/index.js';
import { expectErrorBody, startServer } from '../support/http.js';
import { getEntry, setStatus } from '../support/entries.js';

/**
 * Issue 52: the body of PATCH /entries/{id}/status says, in the published documents, what the service
 * refuses: `reason` is required for REJECTED, CANCELLED and VOIDED (CONTRACT §5 table, `*`; §2: else 400)
 * and may be given for the others. The service and the document are asked the same questions.
 */

const STATUSES = ['PENDING', 'UNDER_REVIEW', 'COMPLETED', 'REJECTED', 'CANCELLED', 'VOIDED'] as const;
const NEEDS_REASON = ['REJECTED', 'CANCELLED', 'VOIDED'];
/** From which status each target is allowed (CONTRACT §5 table), so that only the reason decides. */
const FROM: Record<(typeof STATUSES)[number], (typeof STATUSES)[number]> = {
  PENDING: 'UNDER_REVIEW',
  UNDER_REVIEW: 'PENDING',
  COMPLETED: 'PENDING',
  REJECTED: 'PENDING',
  CANCELLED: 'PENDING',
  VOIDED: 'PENDING',
};

type Schema = Record<string, any>;
const DOCUMENTS = ['openapi.json', 'openapi-3.0.json'].map((file) => ({ file, doc: JSON.parse(readFileSync(file, 'utf8')) }));

function bodySchemaOf(doc: Schema): { ref: string; components: Record<string, Schema> } {
  const content = doc.paths['/entries/{id}/status'].patch.requestBody;
  expect(content.required).toBe(true);
  return { ref: content.content['application/json'].schema.$ref, components: doc.components.schemas };
}

/** The schema with its `$ref`s put in place: a plain JSON Schema for a validator. */
function inlined(schema: Schema, components: Record<string, Schema>): Schema {
  return JSON.parse(JSON.stringify(schema), (_key, value) =>
    value && typeof value === 'object' && typeof value.$ref === 'string'
      ? inlined(components[value.$ref.replace('#/components/schemas/', '')]!, components)
      : value,
  );
}

describe('the documented body of PATCH /entries/{id}/status', () => {
  it.each(DOCUMENTS)('$file: a named oneOf of closed objects, discriminated by status', ({ doc }) => {
    const { ref, components } = bodySchemaOf(doc);
    expect(ref).toBe('#/components/schemas/EntryStatusChange');
    const union = components.EntryStatusChange!;
    expect(union.oneOf.map((o: Schema) => o.$ref).sort()).toEqual([
      '#/components/schemas/EntryStatusChangeReasonOptional',
      '#/components/schemas/EntryStatusChangeWithReason',
    ]);
    expect(union.discriminator.propertyName).toBe('status');
    for (const status of STATUSES) {
      const target = union.discriminator.mapping[status] as string;
      const variant = components[target.replace('#/components/schemas/', '')]!;
      // the variant the discriminator names is the one, and only one, whose status enum holds it
      const holders = union.oneOf.filter((o: Schema) =>
        components[o.$ref.replace('#/components/schemas/', '')]!.properties.status.enum.includes(status),
      );
      expect(
        holders.map((o: Schema) => o.$ref),
        status,
      ).toEqual([target]);
      expect(variant.additionalProperties, status).toBe(false);
      expect(Object.keys(variant.properties).sort(), status).toEqual(['reason', 'status']);
      expect(variant.required.includes('reason'), status).toBe(NEEDS_REASON.includes(status));
    }
  });

  it.each(DOCUMENTS)('$file: a JSON Schema validator refuses a missing reason for exactly REJECTED, CANCELLED, VOIDED', ({ doc }) => {
    const { components } = bodySchemaOf(doc);
    const schema = inlined(components.EntryStatusChange!, components);
    delete schema.discriminator; // an OpenAPI keyword, not JSON Schema's: the oneOf decides alone
    const validator = z.fromJSONSchema(schema);
    for (const status of STATUSES) {
      expect(validator.safeParse({ status }).success, `${status} without reason`).toBe(!NEEDS_REASON.includes(status));
      expect(validator.safeParse({ status, reason: 'checked twice' }).success, `${status} with a reason`).toBe(true);
      expect(validator.safeParse({ status, reason: '   ' }).success, `${status} with a blank reason`).toBe(false);
      expect(validator.safeParse({ status, reason: 'x', note: 'x' }).success, `${status} with an unknown field`).toBe(false);
    }
    expect(validator.safeParse({ status: 'ARCHIVED', reason: 'x' }).success).toBe(false);
    expect(validator.safeParse({ reason: 'x' }).success).toBe(false);
  });
});

describe('the service answers as the document says', () => {
  let w: EntryWorld;
  beforeAll(async () => {
    w = await entryWorld(await startServer());
  });

  it.each(STATUSES)('%s without a reason', async (status) => {
    const entry = await entryIn(w, FROM[status]);
    const res = await setStatus(w, entry.id, status);
    if (!NEEDS_REASON.includes(status)) {
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ entryStatus: status, statusReason: null });
      return;
    }
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(res.body.issues).toEqual([expect.objectContaining({ path: ['reason'], message: `A reason is required to set ${status}` })]);
    expect((await getEntry(w, entry.id)).entryStatus).toBe(FROM[status]);
    // with the reason, the same change goes through (the 400 was the reason, nothing else)
    const done = await setStatus(w, entry.id, status, 'checked twice');
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({ entryStatus: status, statusReason: 'checked twice' });
  });

  it('a missing reason is a 400 before the entry is looked up (visible from the request alone, CONTRACT §2)', async () => {
    expectErrorBody(await setStatus(w, 999_999_999, 'VOIDED'), 400, 'BAD_REQUEST');
    expectErrorBody(await setStatus(w, 999_999_999, 'COMPLETED'), 404, 'NOT_FOUND');
  });

  it('a reason may be given for a status that does not need one, and is kept', async () => {
    const entry = await createEntry(w);
    const res = await setStatus(w, entry.id, 'COMPLETED', 'paid in cash');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ entryStatus: 'COMPLETED', statusReason: 'paid in cash' });
  });
});
