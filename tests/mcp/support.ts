import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, expect } from 'vitest';
import { NON_GRANTABLE_TO_KEYS } from '../../shared/contracts/api-keys.js';
import type { Permission } from '../../shared/permissions.js';
import { createKey } from '../support/factories/index.js';
import type { Api } from '../support/http.js';

/**
 * The bearer of these tests' agent (CONTRACT §20: a §19 API key; a person's session token is a 401): a key `who`
 * makes for `workspaceId`, holding `permissions` or else every permission of `who` that a key may be given.
 */
export async function agentKey(api: Api, who: { token: string }, workspaceId: number, permissions?: Permission[]): Promise<string> {
  let held = permissions;
  if (!held) {
    const me = await api.get('/auth/me', { token: who.token });
    expect(me.status, me.text).toBe(200);
    held = (me.body.permissions as Permission[]).filter((p) => !NON_GRANTABLE_TO_KEYS.includes(p));
  }
  return (await createKey(api, who.token, { workspaceId, permissions: held, name: 'Agent' })).apiKey;
}

const open: Client[] = [];
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
});

/** The official MCP client, connected to the test server's /mcp with `bearer`. */
export async function connectAgent(api: Api, bearer: string | null): Promise<Client> {
  const headers: Record<string, string> = bearer ? { Authorization: `Bearer ${bearer}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', api.baseUrl), { requestInit: { headers } });
  const client = new Client({ name: 'fes-tests', version: '1.0.0' });
  await client.connect(transport);
  open.push(client);
  return client;
}

export type Preview = { preview: true; result: any; confirmToken: string; notice?: string };

/** A tool call's result, expected to succeed: its structuredContent, checked against its text. */
export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(res.isError ?? false, JSON.stringify(res.content)).toBe(false);
  const text = (res.content[0] as { type: 'text'; text: string }).text;
  const json = JSON.parse(text) as unknown;
  expect(res.structuredContent).toEqual(Array.isArray(json) ? { items: json } : json);
  return res.structuredContent;
}

/** A tool error: its §2 body, as structuredContent and as text. */
export async function callError(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ message: string; code: string; issues?: unknown[] }> {
  const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(res.isError, JSON.stringify(res.content)).toBe(true);
  const body = res.structuredContent as { message: string; code: string };
  expect(JSON.parse((res.content[0] as { text: string }).text)).toEqual(body);
  expect(typeof body.message).toBe('string');
  expect(Object.keys(body).filter((k) => !['message', 'code', 'issues'].includes(k))).toEqual([]);
  return body;
}
