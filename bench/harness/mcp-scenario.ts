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

/** The connected MCP clients of one agent, and its key (the REST calls of the same agent use it too). */
type Agent = { key: string; clients: Client[] };

async function agents(c: BenchContext, workspaceId: number): Promise<Agent> {
  const key = await agentKey(c, workspaceId);
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const headers = { Authorization: `Bearer ${key}` };
      const transport = new StreamableHTTPClientTransport(new URL('/mcp', c.server.base), { requestInit: { headers } });
      const client = new Client({ name: 'fes-bench', version: '1.0.0' });
      await client.connect(transport);
      return client;
    }),
  );
  return { key, clients };
}

/** Calls spread over the connected clients (a client carries concurrent calls, each its own POST). */
function withClients(clients: Client[], call: (client: Client) => Promise<void>): () => Promise<void> {
  let next = 0;
  return () => call(clients[next++ % clients.length]);
}

/** A REST call with the bench user's session token, or with `bearer` (the agent's key). */
async function rest(
  c: BenchContext,
  failures: Failures,
  method: 'GET' | 'POST',
  path: string,
  body?: string,
  bearer = c.token,
): Promise<void> {
  const res = await fetch(`${c.server.base}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', authorization: `Bearer ${bearer}` },
    body,
  });
  await res.arrayBuffer();
  if (res.status !== 200) failures.rest++;
}

/**
 * MCP against REST with the bench user's session token (the baseline column), and against REST with the agent's own
 * API key (in the note): an agent acts through a key on both transports, and a key costs PostgreSQL its lookup and
 * its rate window on every request (CONTRACT §19), which a session token's cached check does not.
 */
async function compare(
  c: BenchContext,
  name: string,
  mcpCall: () => Promise<void>,
  restCall: (bearer?: string) => Promise<void>,
  agentKeyOf: string,
  failures: Failures,
  note: string,
): Promise<ResultRow> {
  const restAsAgent = () => restCall(agentKeyOf);
  await loop(c.settings.warmupSeconds, CLIENTS, mcpCall);
  await loop(c.settings.warmupSeconds, CLIENTS, restCall);
  await loop(c.settings.warmupSeconds, CLIENTS, restAsAgent);
  failures.mcp = failures.rest = 0;
  const peak = c.server.watchRss();
  const ours = await metered(c, () => loop(c.settings.seconds, CLIENTS, mcpCall));
  const peakRss = peak();
  const base = await metered(c, () => loop(c.settings.seconds, CLIENTS, restCall));
  const restErrors = failures.rest;
  const asAgent = await metered(c, () => loop(c.settings.seconds, CLIENTS, restAsAgent));
  const agentErrors = failures.rest - restErrors;
  const agentNote =
    `REST with the agent's API key ${asAgent.perSecond.toFixed(0)} req/s (MCP ${(ours.perSecond / asAgent.perSecond).toFixed(2)} of it), ` +
    `CPU/request ${asAgent.serverCpuMs.toFixed(2)} ms server + ${asAgent.dbCpuMs.toFixed(2)} ms PostgreSQL${agentErrors ? `, ${agentErrors} failed responses` : ''}`;
  return throughputRow(name, { ...ours, errors: failures.mcp }, { ...base, errors: restErrors }, peakRss, 0, [note, agentNote], {
    target: '(overhead, no target)',
    sides: ['MCP', 'REST'],
  });
}

export function mcpScenarios(c: BenchContext): [string, () => Promise<ResultRow>][] {
  const clients = new Map<number, Promise<Agent>>();
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
        const agent = await connectedTo(c.dataset.workspaceId);
        const list = withClients(agent.clients, async (client) => {
          const res = await client.callTool({ name: 'listEntries', arguments: args });
          if (res.isError) failures.mcp++;
        });
        const get = (bearer?: string) =>
          rest(c, failures, 'GET', `/entries?workspaceId=${c.dataset.workspaceId}&limit=20`, undefined, bearer);
        const name = 'MCP listEntries vs GET /entries (page of 20), 10 clients';
        return compare(c, name, list, get, agent.key, failures, 'one tool call per request');
      },
    ],
    [
      'mcp: confirmed createEntry vs POST /entries',
      async () => {
        const failures: Failures = { mcp: 0, rest: 0 };
        const body = plainEntryBody(c.writes.projectId, 'Bench MCP createEntry', 'BENCH-MCP');
        const args = JSON.parse(body) as Record<string, unknown>;
        const agent = await connected();
        const create = withClients(agent.clients, async (client) => {
          const preview = await client.callTool({ name: 'createEntry', arguments: args });
          const token = (preview.structuredContent as { confirmToken?: string } | undefined)?.confirmToken;
          if (preview.isError || !token) return void failures.mcp++;
          const done = await client.callTool({ name: 'createEntry', arguments: { ...args, confirm: token } });
          if (done.isError) failures.mcp++;
        });
        const post = (bearer?: string) => rest(c, failures, 'POST', '/entries', body, bearer);
        try {
          return await compare(
            c,
            'MCP createEntry (preview + confirm) vs POST /entries, 10 clients',
            create,
            post,
            agent.key,
            failures,
            'an MCP "request" is one confirmed entry: two tool calls (the rolled-back preview, then the write)',
          );
        } finally {
          for (const each of clients.values()) await Promise.all((await each).clients.map((client) => client.close()));
        }
      },
    ],
  ];
}
