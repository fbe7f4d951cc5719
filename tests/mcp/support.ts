import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, expect } from 'vitest';
import type { Api } from '../support/http.js';

/**
 * The bearer of these tests' agent: a person's access token, which /mcp accepts as every route does
 * (the route's own bearer resolution). The agents of CONTRACT §20 use an app's API key (§19):
 * tests/mcp/api-key.test.ts covers that, with the key's tools, scope and attribution.
 */
export const mcpBearer = (who: { token: string }): string => who.token;

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
