/**
 * What the MCP transport (CONTRACT §20) costs over REST for the same operation, from the same number of
 * clients: a `listEntries` tool call against GET /entries (a page of 20 of the read dataset), and a
 * confirmed `createEntry` (the preview, run and rolled back, then the confirm) against one POST /entries.
 * The MCP side is the official client SDK, one connected client per worker, as an agent would call.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { metered } from './cpu.js';
import { plainEntryBody } from './fixtures.js';
import { loop } from './load.js';
import type { BenchContext } from './scenarios.js';
import { throughputRow, type ResultRow } from './table.js';

const CLIENTS = 10;

type Failures = { mcp: number; rest: number };

async function agents(c: BenchContext): Promise<Client[]> {
  return Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const headers = { Authorization: `Bearer ${c.token}` };
      const transport = new StreamableHTTPClientTransport(new URL('/mcp', c.server.base), { requestInit: { headers } });
      const client = new Client({ name: 'fes-bench', version: '1.0.0' });
      await client.connect(transport);
      return client;
    }),
  );
}

/** Calls spread over the connected clients (a client carries concurrent calls, each its own POST). */
function withClients(clients: Client[], call: (client: Client) => Promise<void>): () => Promise<void> {
  let next = 0;
  return () => call(clients[next++ % clients.length]);
}

async function rest(c: BenchContext, failures: Failures, method: 'GET' | 'POST', path: string, body?: string): Promise<void> {
  const res = await fetch(`${c.server.base}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', authorization: `Bearer ${c.token}` },
    body,
  });
  await res.arrayBuffer();
  if (res.status !== 200) failures.rest++;
}

async function compare(
  c: BenchContext,
  name: string,
  mcpCall: () => Promise<void>,
  restCall: () => Promise<void>,
  failures: Failures,
  note: string,
): Promise<ResultRow> {
  await loop(c.settings.warmupSeconds, CLIENTS, mcpCall);
  await loop(c.settings.warmupSeconds, CLIENTS, restCall);
  failures.mcp = failures.rest = 0;
  const peak = c.server.watchRss();
  const ours = await metered(c, () => loop(c.settings.seconds, CLIENTS, mcpCall));
  const peakRss = peak();
  const base = await metered(c, () => loop(c.settings.seconds, CLIENTS, restCall));
  return throughputRow(name, { ...ours, errors: failures.mcp }, { ...base, errors: failures.rest }, peakRss, 0, [note], {
    target: '(overhead, no target)',
    sides: ['MCP', 'REST'],
  });
}

export function mcpScenarios(c: BenchContext): [string, () => Promise<ResultRow>][] {
  let clients: Promise<Client[]> | undefined;
  const connected = () => (clients ??= agents(c));
  return [
    [
      'mcp: listEntries tool vs GET /entries',
      async () => {
        const failures: Failures = { mcp: 0, rest: 0 };
        const args = { workspaceId: c.dataset.workspaceId, limit: 20 };
        const list = withClients(await connected(), async (client) => {
          const res = await client.callTool({ name: 'listEntries', arguments: args });
          if (res.isError) failures.mcp++;
        });
        const get = () => rest(c, failures, 'GET', `/entries?workspaceId=${c.dataset.workspaceId}&limit=20`);
        return compare(c, 'MCP listEntries vs GET /entries (page of 20), 10 clients', list, get, failures, 'one tool call per request');
      },
    ],
    [
      'mcp: confirmed createEntry vs POST /entries',
      async () => {
        const failures: Failures = { mcp: 0, rest: 0 };
        const body = plainEntryBody(c.writes.projectId, 'Bench MCP createEntry', 'BENCH-MCP');
        const args = JSON.parse(body) as Record<string, unknown>;
        const create = withClients(await connected(), async (client) => {
          const preview = await client.callTool({ name: 'createEntry', arguments: args });
          const token = (preview.structuredContent as { confirmToken?: string } | undefined)?.confirmToken;
          if (preview.isError || !token) return void failures.mcp++;
          const done = await client.callTool({ name: 'createEntry', arguments: { ...args, confirm: token } });
          if (done.isError) failures.mcp++;
        });
        const post = () => rest(c, failures, 'POST', '/entries', body);
        try {
          return await compare(
            c,
            'MCP createEntry (preview + confirm) vs POST /entries, 10 clients',
            create,
            post,
            failures,
            'an MCP "request" is one confirmed entry: two tool calls (the rolled-back preview, then the write)',
          );
        } finally {
          await Promise.all((await connected()).map((client) => client.close()));
        }
      },
    ],
  ];
}
