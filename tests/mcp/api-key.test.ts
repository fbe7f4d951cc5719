import { QueryTypes } from 'sequelize';
import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../server/db/database.js';
import { startServer, type Api } from '../support/http.js';
import { entryWorld, type EntryWorld, createKey } from '../support/factories/index.js';
import { call, callError, connectAgent, type Preview } from './support.js';

/**
 * CONTRACT §20 with a §19 key as the agent's bearer: the tools a key sees follow its permissions, its
 * writes stay inside its projects, and the events of its confirmed writes are the key's, via mcp.
 */
let api: Api;
let w: EntryWorld;
beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api, { projects: 2 });
});

const entriesIn = async (projectId: number): Promise<number> =>
  Number(
    (
      await db().query<{ n: string }>('SELECT count(*) AS n FROM entries WHERE project_id = :p', {
        replacements: { p: projectId },
        type: QueryTypes.SELECT,
      })
    )[0].n,
  );

const newEntry = (projectId: number) => ({
  projectId,
  entryType: 'EXPENSE',
  amountCents: 12_345,
  baseCurrency: 'USD',
  entryDate: '2026-02-03',
  description: 'Agent paper',
});

describe('an agent with an API key', () => {
  it('is refused with a revoked key before any MCP message', async () => {
    const key = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['workspace.read'] });
    expect((await api.del(`/api-keys/${key.id}`, { token: w.token })).status).toBe(200);
    await expect(connectAgent(api, key.apiKey)).rejects.toMatchObject({ code: 401 });
  });

  it('sees only read tools with a read-only key, and no user administration with any key', async () => {
    const reader = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['workspace.read'] });
    const names = new Set((await (await connectAgent(api, reader.apiKey)).listTools()).tools.map((t) => t.name));
    expect(names.has('listEntries')).toBe(true);
    for (const write of ['createEntry', 'voidEntry', 'createUser', 'updateUser']) expect(names.has(write), write).toBe(false);

    const writer = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['workspace.read', 'entry.create'] });
    const writerNames = new Set((await (await connectAgent(api, writer.apiKey)).listTools()).tools.map((t) => t.name));
    expect(writerNames.has('createEntry')).toBe(true);
    expect(writerNames.has('createUser')).toBe(false);
  });

  it("confirms a create once, attributed to the key via mcp, and only inside the key's projects", async () => {
    const [mine, other] = w.projectIds;
    const key = await createKey(api, w.token, {
      workspaceId: w.workspaceId,
      permissions: ['workspace.read', 'entry.create'],
      projectIds: [mine],
    });
    const client = await connectAgent(api, key.apiKey);

    const beforeOther = await entriesIn(other);
    const rest = await api.post('/entries', newEntry(other), { token: key.apiKey });
    expect(rest.status).toBeGreaterThanOrEqual(400);
    expect(await callError(client, 'createEntry', newEntry(other))).toEqual(rest.body);
    expect(await entriesIn(other)).toBe(beforeOther);

    const before = await entriesIn(mine);
    const preview = (await call(client, 'createEntry', newEntry(mine))) as Preview;
    expect(preview.preview).toBe(true);
    expect(await entriesIn(mine)).toBe(before);
    const created = await call(client, 'createEntry', { ...newEntry(mine), confirm: preview.confirmToken });
    expect(await call(client, 'createEntry', { ...newEntry(mine), confirm: preview.confirmToken })).toEqual(created);
    expect(await entriesIn(mine)).toBe(before + 1);

    const events = (await api.get(`/entries/${created.id}/events`, { token: w.token })).body as any[];
    expect(events[0]).toMatchObject({ kind: 'ENTRY_CREATED', actorType: 'API_KEY', data: expect.objectContaining({ via: 'mcp' }) });
  });

  it('does not replay a confirmed write to a key revoked since', async () => {
    const [mine] = w.projectIds;
    const key = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['workspace.read', 'entry.create'] });
    const client = await connectAgent(api, key.apiKey);
    const { confirmToken } = (await call(client, 'createEntry', newEntry(mine))) as Preview;
    await call(client, 'createEntry', { ...newEntry(mine), confirm: confirmToken });
    expect((await api.del(`/api-keys/${key.id}`, { token: w.token })).status).toBe(200);
    const res = await client.callTool({ name: 'createEntry', arguments: { ...newEntry(mine), confirm: confirmToken } }).catch((e) => e);
    // a revoked key is refused at the door (401), never answered with the stored result
    expect(res).toMatchObject({ code: 401 });
    expect(JSON.stringify(res)).not.toContain('Agent paper');
  });
});
