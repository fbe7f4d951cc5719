import { QueryTypes } from 'sequelize';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../server/db/database.js';
import { clock } from '../../server/lib/clock.js';
import { PERMISSIONS } from '../../shared/permissions.js';
import { actor, buildWorkspace, createEntry, entryIn, entryWorld, type EntryWorld } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';
import { agentKey, call, callError, connectAgent, type Preview } from './support.js';

let api: Api;
let w: EntryWorld;
beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api);
});
afterEach(() => clock.reset());

const count = async (sql: string, workspaceId: number): Promise<number> =>
  Number((await db().query<{ n: string }>(sql, { replacements: { ws: workspaceId }, type: QueryTypes.SELECT }))[0].n);
const entriesOf = (ws: number) => count('SELECT count(*) AS n FROM entries WHERE workspace_id = :ws', ws);
const eventsOf = (ws: number) => count('SELECT count(*) AS n FROM entry_events WHERE workspace_id = :ws', ws);
const outboxOf = (ws: number) => count('SELECT count(*) AS n FROM webhook_events WHERE workspace_id = :ws', ws);

const newEntry = (over: Record<string, unknown> = {}) => ({
  projectId: w.projectId,
  entryType: 'EXPENSE',
  amountCents: 4_200,
  baseCurrency: 'USD',
  entryDate: '2026-02-03',
  description: 'Printer paper',
  ...over,
});

describe('authentication', () => {
  it('answers 401 with the §2 body before any MCP message when the bearer is missing or invalid', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    };
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    for (const auth of [undefined, 'Bearer not-a-token', `Bearer ${w.token}x`]) {
      const res = await api.post('/mcp', initialize, { headers: auth ? { ...headers, Authorization: auth } : headers });
      expect(res.status, res.text).toBe(401);
      expect(res.body).toMatchObject({ code: 'UNAUTHORIZED' });
      expect(Object.keys(res.body).sort()).toEqual(['code', 'message']);
    }
    await expect(connectAgent(api, null)).rejects.toMatchObject({ code: 401 });
  });

  it("refuses a person's session token with 401 before any MCP message (CONTRACT §20: agents act through keys)", async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    };
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    const res = await api.post('/mcp', initialize, { headers: { ...headers, Authorization: `Bearer ${w.token}` } });
    expect(res.status, res.text).toBe(401);
    expect(res.body).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(Object.keys(res.body).sort()).toEqual(['code', 'message']);
    await expect(connectAgent(api, w.token)).rejects.toMatchObject({ code: 401 });
    // the same person's key is let in
    const client = await connectAgent(api, await agentKey(api, w.owner, w.workspaceId));
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('keeps no sessions or streams: GET and DELETE /mcp are 405 at once', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await api.request(method, '/mcp', { token: w.token, headers: { Accept: 'text/event-stream' } });
      expect(res.status, res.text).toBe(405);
      expect(res.body.code).toBe('METHOD_NOT_SUPPORTED');
    }
  });
});

describe('tools/list', () => {
  it('offers the operations of the OpenAPI document by operationId, with hints, and no file transfers', async () => {
    const client = await connectAgent(api, await agentKey(api, w.owner, w.workspaceId));
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.size).toBe(tools.length);

    const doc = (await api.get('/openapi.json')).body as { paths: Record<string, Record<string, any>> };
    const operations = Object.values(doc.paths).flatMap((item) =>
      Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), ...(op as object) }) as any),
    );
    const isFileTransfer = (op: any) =>
      Object.keys(op.requestBody?.content ?? {}).some((t) => t !== 'application/json') ||
      Object.keys(op.responses?.['200']?.content ?? {}).some((t) => t !== 'application/json');
    for (const op of operations) {
      const tool = byName.get(op.operationId);
      if (isFileTransfer(op) || op.security?.length === 0 || op.operationId === 'login') {
        expect(tool, `${op.operationId} is not a tool`).toBeUndefined();
        continue;
      }
      if (!tool) continue; // public operations (refresh) and express routes (ingest, webhooks) are not tools
      expect(tool.description).toContain(op.summary);
      // CONTRACT §20: description = its summary AND its description
      expect(op.description, `${op.operationId} has a description`).toEqual(expect.any(String));
      expect(tool.description, op.operationId).toContain(op.description);
      expect(tool.annotations?.readOnlyHint).toBe(op.method === 'GET');
      if (op.method === 'DELETE') expect(tool.annotations?.destructiveHint, op.operationId).toBe(true);
    }
    for (const name of ['voidEntry', 'revokeIntegration', 'rejectReview', 'rejectEntryDocument', 'deleteTag']) {
      expect(byName.get(name)?.annotations?.destructiveHint, name).toBe(true);
    }
    for (const name of ['createEntry', 'updateEntry', 'createParty']) {
      expect(byName.get(name)?.annotations?.destructiveHint, name).toBe(false);
    }
    expect(byName.has('uploadEntryDocument') || byName.has('exportEntriesCsv')).toBe(false);

    const voidEntry = byName.get('voidEntry')!;
    expect(voidEntry.inputSchema.properties).toMatchObject({
      id: { type: 'integer' },
      reason: { type: 'string' },
      confirm: { type: 'string' },
    });
    expect(voidEntry.inputSchema.required).toEqual(expect.arrayContaining(['id', 'reason']));
    expect(byName.get('listEntries')!.inputSchema.properties).not.toHaveProperty('confirm');
    // CONTRACT §5: a reason is required to set REJECTED, CANCELLED or VOIDED, and the tool's one object says so
    const statusTool = byName.get('updateEntryStatus')!.inputSchema as any;
    expect(statusTool.type).toBe('object');
    expect(statusTool.required).toEqual(expect.arrayContaining(['id', 'status']));
    expect(statusTool.required).not.toContain('reason');
    expect(statusTool.allOf).toEqual([
      {
        if: { properties: { status: { enum: expect.arrayContaining(['REJECTED', 'CANCELLED', 'VOIDED']) } }, required: ['status'] },
        then: { required: ['reason'] },
      },
    ]);
    expect(statusTool.allOf[0].if.properties.status.enum).toHaveLength(3);
  });

  it('shows a read-only caller only what its permissions allow, and refuses the rest with 403', async () => {
    const client = await connectAgent(api, await agentKey(api, w.owner, w.workspaceId, ['workspace.read']));
    const names = new Set((await client.listTools()).tools.map((t) => t.name));
    expect(names.has('listEntries')).toBe(true);
    expect(names.has('getEntry')).toBe(true);
    for (const write of ['createEntry', 'voidEntry', 'updateEntry', 'createParty', 'deleteTag']) {
      expect(names.has(write), write).toBe(false);
    }
    const before = await entriesOf(w.workspaceId);
    expect(await callError(client, 'createEntry', newEntry())).toMatchObject({ code: 'FORBIDDEN' });
    expect(await entriesOf(w.workspaceId)).toBe(before);

    const full = await connectAgent(api, await agentKey(api, w.owner, w.workspaceId));
    const all = (await full.listTools()).tools.map((t) => t.name);
    expect(all).toEqual(expect.arrayContaining(['createEntry', 'voidEntry', 'createParty']));
    // a key is never given user administration, key management or workspace creation (CONTRACT §19)
    for (const admin of ['createUser', 'updateUser', 'createApiKey', 'createWorkspace']) expect(all, admin).not.toContain(admin);
    expect(all.length).toBeGreaterThan(names.size);
    expect(PERMISSIONS.length).toBeGreaterThan(1);
  });
});

describe('reads', () => {
  it('answers listEntries with the REST body as structuredContent, and a plain array as {items}', async () => {
    await createEntry(w);
    const client = await connectAgent(api, await agentKey(api, w.owner, w.workspaceId));
    const page = await call(client, 'listEntries', { workspaceId: w.workspaceId, limit: 5 });
    const rest = await api.get('/entries', { token: w.token, query: { workspaceId: w.workspaceId, limit: 5 } });
    expect(page).toEqual(rest.body);
    expect(page.items.length).toBeGreaterThan(0);

    const parties = await call(client, 'listParties', { workspaceId: w.workspaceId });
    const restParties = await api.get('/parties', { token: w.token, query: { workspaceId: w.workspaceId } });
    expect(parties).toEqual({ items: restParties.body });
  });

  it('validates as REST does: a bad argument is a 400 tool error with issues, an unknown one too', async () => {
    const client = await connectAgent(api, await agentKey(api, w.owner, w.workspaceId));
    const bad = await callError(client, 'listEntries', { workspaceId: w.workspaceId, limit: 500 });
    expect(bad.code).toBe('BAD_REQUEST');
    expect(bad.issues?.length).toBeGreaterThan(0);
    expect(await callError(client, 'listEntries', { workspaceId: w.workspaceId, colour: 'red' })).toMatchObject({ code: 'BAD_REQUEST' });
    expect(await callError(client, 'createEntry', newEntry({ amountCents: -5 }))).toMatchObject({ code: 'BAD_REQUEST' });
  });

  it("answers another workspace's object as REST does: 404, never revealing it", async () => {
    const other = await entryWorld(api);
    const foreign = await createEntry(other);
    const client = await connectAgent(api, await agentKey(api, w.owner, w.workspaceId));
    const res = await callError(client, 'getEntry', { id: foreign.id });
    const rest = await api.get(`/entries/${foreign.id}`, { token: w.token });
    expect(rest.status).toBe(404);
    expect(res).toEqual(rest.body);
    expect(await callError(client, 'voidEntry', { id: foreign.id, reason: 'not mine' })).toMatchObject({ code: 'NOT_FOUND' });
    const ws = await buildWorkspace();
    expect(await callError(client, 'listEntries', { workspaceId: ws.id })).toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('writes: preview, then confirm', () => {
  it('previews a create without writing anything: no entry, event or outbound event', async () => {
    const client = await connectAgent(api, await agentKey(api, w.owner, w.workspaceId));
    const [entries, events, outbox] = [await entriesOf(w.workspaceId), await eventsOf(w.workspaceId), await outboxOf(w.workspaceId)];
    const preview = (await call(client, 'createEntry', newEntry())) as Preview;
    expect(preview.preview).toBe(true);
    expect(preview.result).toMatchObject({
      amountCents: 4_200,
      entryStatus: 'PENDING',
      description: 'Printer paper',
      workspaceId: w.workspaceId,
    });
    expect(typeof preview.confirmToken).toBe('string');
    expect(await entriesOf(w.workspaceId)).toBe(entries);
    expect(await eventsOf(w.workspaceId)).toBe(events);
    expect(await outboxOf(w.workspaceId)).toBe(outbox);
    const rows = await db().query('SELECT id FROM entries WHERE id = :id', {
      replacements: { id: preview.result.id },
      type: QueryTypes.SELECT,
    });
    expect(rows).toEqual([]);
  });

  it('writes once on confirm, however many confirms arrive, and marks its events via mcp', async () => {
    const client = await connectAgent(api, await agentKey(api, w.owner, w.workspaceId));
    const before = await entriesOf(w.workspaceId);
    const args = newEntry({ description: 'Toner', amountCents: 7_700 });
    const { confirmToken } = (await call(client, 'createEntry', args)) as Preview;

    const created = await call(client, 'createEntry', { ...args, confirm: confirmToken });
    expect(created).toMatchObject({ amountCents: 7_700, description: 'Toner', entryStatus: 'PENDING' });
    expect(created).not.toHaveProperty('preview');
    expect(await entriesOf(w.workspaceId)).toBe(before + 1);

    const again = await call(client, 'createEntry', { ...args, confirm: confirmToken });
    expect(again).toEqual(created);
    const racing = await Promise.all(
      [1, 2, 3].map(() => client.callTool({ name: 'createEntry', arguments: { ...args, confirm: confirmToken } })),
    );
    for (const r of racing) {
      if (r.isError) expect((r.structuredContent as { code: string }).code).toBe('CONFLICT');
      else expect(r.structuredContent).toEqual(created);
    }
    expect(await entriesOf(w.workspaceId)).toBe(before + 1);

    const rest = await api.get(`/entries/${created.id}`, { token: w.token });
    expect(rest.body).toMatchObject({ id: created.id, amountCents: 7_700 });
    const events = (await api.get(`/entries/${created.id}/events`, { token: w.token })).body as any[];
    expect(events.map((e) => e.kind)).toEqual(['ENTRY_CREATED']);
    expect(events[0]).toMatchObject({ actorType: 'API_KEY', data: expect.objectContaining({ via: 'mcp' }) });
    expect((await api.get(`/entries/${created.id}/events/verify`, { token: w.token })).body).toMatchObject({ valid: true });

    const byRest = await createEntry(w);
    const restEvents = (await api.get(`/entries/${byRest.id}/events`, { token: w.token })).body as any[];
    expect(restEvents[0].data).not.toHaveProperty('via');
  });

  it('refuses a token for other arguments, another tool, another caller, a forged or an expired one, writing nothing', async () => {
    const client = await connectAgent(api, await agentKey(api, w.owner, w.workspaceId));
    const args = newEntry({ amountCents: 1_000 });
    const { confirmToken } = (await call(client, 'createEntry', args)) as Preview;
    const before = await entriesOf(w.workspaceId);

    const mismatched = await callError(client, 'createEntry', { ...args, amountCents: 2_000, confirm: confirmToken });
    expect(mismatched.code).toBe('BAD_REQUEST');
    const target = await createEntry(w);
    expect(await callError(client, 'voidEntry', { id: target.id, reason: 'x', confirm: confirmToken })).toMatchObject({
      code: 'BAD_REQUEST',
    });
    const [kid, payload, sig] = confirmToken.split('.');
    const forged = `${kid}.${payload}.${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(await callError(client, 'createEntry', { ...args, confirm: forged })).toMatchObject({ code: 'BAD_REQUEST' });
    expect(await callError(client, 'createEntry', { ...args, confirm: 'garbage' })).toMatchObject({ code: 'BAD_REQUEST' });

    const colleague = await actor(api, { workspaceId: w.workspaceId });
    const theirs = await connectAgent(api, await agentKey(api, colleague, w.workspaceId));
    expect(await callError(theirs, 'createEntry', { ...args, confirm: confirmToken })).toMatchObject({ code: 'BAD_REQUEST' });

    const later = new Date(Date.now() + 11 * 60_000);
    clock.set(() => later);
    const expired = await callError(client, 'createEntry', { ...args, confirm: confirmToken });
    expect(expired).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/expired/) });
    clock.reset();
    expect(await entriesOf(w.workspaceId)).toBe(before + 1); // only `target`, made over REST
  });

  it('answers a preview that breaks a rule with the 409 REST gives, and issues no token', async () => {
    const voided = await entryIn(w, 'VOIDED');
    const client = await connectAgent(api, await agentKey(api, w.owner, w.workspaceId));
    const events = await eventsOf(w.workspaceId);
    const res = await callError(client, 'voidEntry', { id: voided.id, reason: 'again' });
    const rest = await api.post(`/entries/${voided.id}/void`, { reason: 'again' }, { token: w.token });
    expect(rest.status).toBe(409);
    expect(res).toEqual(rest.body);
    expect(await eventsOf(w.workspaceId)).toBe(events);
  });

  it('previews and confirms a void: the entry stays PENDING after the preview and is VOIDED once after the confirm', async () => {
    const entry = await createEntry(w);
    const client = await connectAgent(api, await agentKey(api, w.owner, w.workspaceId));
    const preview = (await call(client, 'voidEntry', { id: entry.id, reason: 'duplicate' })) as Preview;
    expect(preview.result).toMatchObject({ id: entry.id, entryStatus: 'VOIDED' });
    expect((await api.get(`/entries/${entry.id}`, { token: w.token })).body.entryStatus).toBe('PENDING');
    const voided = await call(client, 'voidEntry', { reason: 'duplicate', id: entry.id, confirm: preview.confirmToken });
    expect(voided).toMatchObject({ id: entry.id, entryStatus: 'VOIDED' });
    expect(await call(client, 'voidEntry', { id: entry.id, reason: 'duplicate', confirm: preview.confirmToken })).toEqual(voided);
    const kinds = ((await api.get(`/entries/${entry.id}/events`, { token: w.token })).body as any[]).map((e) => e.kind);
    expect(kinds.filter((k) => k === 'VOIDED')).toHaveLength(1);
  });
});

describe('writes made outside a transaction', () => {
  it('previews createParty (a model create without a transaction) without keeping the party, and creates it on confirm', async () => {
    const client = await connectAgent(api, await agentKey(api, w.owner, w.workspaceId));
    const parties = () => count('SELECT count(*) AS n FROM parties WHERE workspace_id = :ws', w.workspaceId);
    const before = await parties();
    const args = { workspaceId: w.workspaceId, name: 'Agent Supplies Ltd', partyType: 'ORGANIZATION' };
    const preview = (await call(client, 'createParty', args)) as Preview;
    expect(preview.result).toMatchObject({ name: 'Agent Supplies Ltd', workspaceId: w.workspaceId });
    expect(await parties()).toBe(before);
    const created = await call(client, 'createParty', { ...args, confirm: preview.confirmToken });
    expect(created).toMatchObject({ name: 'Agent Supplies Ltd' });
    expect(await parties()).toBe(before + 1);
  });

  it("answers logout as REST answers a key (403: a key has no session), ending none of its creator's sessions", async () => {
    const agent = await actor(api, { workspaceId: w.workspaceId });
    const client = await connectAgent(api, await agentKey(api, agent, w.workspaceId));
    expect(await callError(client, 'logout', {})).toMatchObject({ code: 'FORBIDDEN' });
    expect((await api.get('/auth/me', { token: agent.token })).status).toBe(200);
  });
});
