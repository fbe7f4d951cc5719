import { beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startServer, type Api } from '../support/http.js';
import { entryWorld, type EntryWorld } from '../support/factories/index.js';
import { agentKey, connectAgent } from './support.js';

let api: Api;
let w: EntryWorld;
beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api);
});

describe('every tool', () => {
  it('answers empty or foreign arguments with a result or a 4xx tool error, never a 500 or a protocol error', async () => {
    const client = await connectAgent(api, await agentKey(api, w.owner, w.workspaceId));
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(100);
    const failures: string[] = [];
    for (const tool of tools) {
      for (const args of [{}, { id: 987_654_321, workspaceId: 987_654 }]) {
        const res = (await client.callTool({ name: tool.name, arguments: args })) as CallToolResult;
        const body = res.structuredContent as { code?: string; preview?: boolean } | undefined;
        if (res.isError && (!body?.code || body.code === 'INTERNAL_SERVER_ERROR')) failures.push(`${tool.name} ${JSON.stringify(body)}`);
        if (!res.isError && tool.annotations?.readOnlyHint === false && body?.preview !== true)
          failures.push(`${tool.name}: wrote without a confirm`);
      }
    }
    expect(failures).toEqual([]);
  });
});
