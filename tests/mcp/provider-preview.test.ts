import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEntry, syncWorld } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';
import { providerCreates, providerRequests, startEmulators, stopEmulators, syncOf, type Emulators } from '../accounting/sync/helpers.js';
import { agentKey, call, connectAgent, type Preview } from './support.js';

let api: Api;
let e: Emulators;
beforeAll(async () => {
  api = await startServer();
  e = await startEmulators();
});
afterAll(() => stopEmulators(e));

describe('a write that talks to an accounting provider', () => {
  it('previews without contacting the provider or storing a sync record, then pushes once on confirm', async () => {
    const w = await syncWorld(api, 'GENERIC', e);
    const entry = await createEntry(w);
    const client = await connectAgent(api, await agentKey(api, w.owner, w.workspaceId));
    const args = { entryId: entry.id, connectionId: w.connection.id };
    const requests = providerRequests(w);

    const preview = (await call(client, 'pushEntry', args)) as Preview;
    expect(preview).toMatchObject({ preview: true, result: null, notice: expect.stringContaining('stopped before contacting') });
    expect(providerRequests(w)).toBe(requests);
    expect(await syncOf(w, entry.id)).toBeNull();

    const pushed = await call(client, 'pushEntry', { ...args, confirm: preview.confirmToken });
    expect(pushed).toMatchObject({ entryId: entry.id, status: 'SYNCED' });
    expect(await call(client, 'pushEntry', { ...args, confirm: preview.confirmToken })).toEqual(pushed);
    expect(providerCreates(w)).toBe(1);
  });

  it('gives a dry run (which sends nothing) as a preview with its result', async () => {
    const w = await syncWorld(api, 'GENERIC', e);
    const entry = await createEntry(w);
    const client = await connectAgent(api, await agentKey(api, w.owner, w.workspaceId));
    const requests = providerRequests(w);
    const preview = (await call(client, 'pushEntry', { entryId: entry.id, connectionId: w.connection.id, dryRun: true })) as Preview;
    expect(preview.preview).toBe(true);
    expect(preview.result).toMatchObject({ dryRun: true });
    expect(providerRequests(w)).toBe(requests);
  });
});
