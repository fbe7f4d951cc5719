import { beforeAll, describe, expect, it } from 'vitest';
import { createClient, NotFoundError } from '../../client-sdk/src/index.js';
import { startServer, type Api } from '../support/http.js';
import { entryWorld, type EntryWorld, createKey } from '../support/factories/index.js';

/**
 * CONTRACT §19 through the SDK: `createClient({ baseUrl, apiKey })` is an app's whole set-up; the key
 * creates entries in its project over tRPC and REST, and another project is a NotFoundError.
 */
let api: Api;
let w: EntryWorld;
beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api, { projects: 2 });
});

const entry = (projectId: number, reference: string) => ({
  projectId,
  entryType: 'EXPENSE' as const,
  amountCents: 2_500,
  baseCurrency: 'USD',
  entryDate: '2026-03-10',
  reference,
});

describe('the SDK with an API key', () => {
  it("creates entries in the key's project only, over tRPC and REST", async () => {
    const [p, q] = w.projectIds;
    const key = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['entry.create'], projectIds: [p] });
    const app = createClient({ baseUrl: api.baseUrl, apiKey: key.apiKey });

    const byTrpc = await app.trpc.entries.create.mutate(entry(p, 'sdk-key-trpc'));
    expect(byTrpc).toMatchObject({ projectId: p, reference: 'sdk-key-trpc', createdBy: null });
    const byRest = (await app.rest.request('POST', '/entries', { body: entry(p, 'sdk-key-rest') })) as { projectId: number };
    expect(byRest).toMatchObject({ projectId: p, reference: 'sdk-key-rest' });

    await expect(app.trpc.entries.create.mutate(entry(q, 'sdk-key-other'))).rejects.toBeInstanceOf(NotFoundError);
    await expect(app.rest.request('POST', '/entries', { body: entry(q, 'sdk-key-other') })).rejects.toBeInstanceOf(NotFoundError);

    const events = await api.get(`/entries/${byTrpc.id}/events`, { token: w.token });
    expect(events.body[0]).toMatchObject({ actorType: 'API_KEY', actorId: key.id });
  });
});
