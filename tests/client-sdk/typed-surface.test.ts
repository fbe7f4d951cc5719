import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createClient, WEBHOOK_EVENT_TYPES, type RouterInputs, type WebhookEvent } from '../../client-sdk/src/index.js';

/**
 * The SDK's inputs are typed from the zod contracts (ids are numbers or uuids, not `unknown`), and
 * its typed events are every event the OpenAPI document's `webhooks` names. The type checks run
 * under `tsc` (npm run typecheck): an `@ts-expect-error` that meets no error fails it.
 */

// never called: it only has to compile
export async function wrongIdsDoNotCompile(api: ReturnType<typeof createClient>): Promise<void> {
  // @ts-expect-error a workspace id is a number
  await api.trpc.entries.list.query({ workspaceId: 'x' });
  // @ts-expect-error an entry id is a number
  await api.trpc.entries.get.query({ id: '12' });
  const entry = { entryType: 'INCOME', amountCents: 1, baseCurrency: 'USD', entryDate: '2026-01-01' } as const;
  // @ts-expect-error a project id is a number
  await api.trpc.entries.create.mutate({ ...entry, projectId: '1' });
  // @ts-expect-error tag ids are numbers
  await api.trpc.entries.list.query({ workspaceId: 1, tagIds: [true] });
  await api.trpc.entries.list.query({ workspaceId: 1, tagIds: [1, 2], limit: 10 });
}

describe('SDK types', () => {
  it('types the ids of inputs as numbers', () => {
    expectTypeOf<RouterInputs['entries']['list']['workspaceId']>().toEqualTypeOf<number>();
    expectTypeOf<RouterInputs['entries']['get']['id']>().toEqualTypeOf<number>();
    expectTypeOf<RouterInputs['entries']['create']['projectId']>().toEqualTypeOf<number>();
    expectTypeOf<RouterInputs['parties']['list']['workspaceId']>().toEqualTypeOf<number>();
    expectTypeOf<RouterInputs['entries']['list']['limit']>().toEqualTypeOf<number | undefined>();
    expect(typeof wrongIdsDoNotCompile).toBe('function');
  });

  it('types every event of the document', () => {
    const doc = JSON.parse(readFileSync('openapi.json', 'utf8')) as { webhooks: Record<string, unknown> };
    expect([...WEBHOOK_EVENT_TYPES].sort()).toEqual(Object.keys(doc.webhooks).sort());
    expectTypeOf<Extract<WebhookEvent, { type: 'document.extracted' }>['data']['object']['id']>().toEqualTypeOf<string>();
    expectTypeOf<Extract<WebhookEvent, { type: 'document.attached' }>['data']['object']['documentName']>().toEqualTypeOf<string>();
  });
});
