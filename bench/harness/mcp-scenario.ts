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

/** CONTRACT §20: an agent acts through a §19 API key (a session token is a 401): one for `workspaceId`, made by the bench user. */
async function agentKey(c: BenchContext, workspaceId: number): Promise<string> {
  const res = await fetch(`${c.server.base}/api-keys`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', authorization: `Bearer ${c.token}` },
    body: JSON.stringify({ workspaceId, name: 'Bench agent', permissions: ['workspace.read', 'entry.create'] }),
  });
  if (res.status !== 200) throw new Error(`bench agent key: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { apiKey: string }).apiKey;
}

async function agents(c: BenchContext, workspaceId: number): Promise<Client[]> {
  const key = await agentKey(c, workspaceId);
  return Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const headers = { Authorization: `Bearer ${key}` };
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
  const clients = new Map<number, Promise<Client[]>>();
  const connectedTo = (workspaceId: number) => {
    if (!clients.has(workspaceId)) clients.set(workspaceId, agents(c, workspaceId));
    return clients.get(workspaceId)!;
  };
  const connected = () => connectedTo(c.writes.workspaceId);
  return [
    [
      'mcp: listEntries tool vs GET /entries',
      async () => {
        const failures: Failures = { mcp: 0, rest: 0 };
        const args = { workspaceId: c.dataset.workspaceId, limit: 20 };
        const list = withClients(await connectedTo(c.dataset.workspaceId), async (client) => {
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
          for (const each of clients.values()) await Promise.all((await each).map((client) => client.close()));
        }
      },
    ],
  ];
}
