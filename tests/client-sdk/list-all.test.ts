import { beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../client-sdk/src/index.js';
import { buildUser, buildWorkspace, type TestUser } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';

/** The SDK's iterators over every page of GET /entries (CONTRACT §18 cursors), against the real server. */

let api: Api;
let user: TestUser;
let workspaceId: number;
let projectId: number;
let client: Client;
const ids: number[] = [];

beforeAll(async () => {
  api = await startServer();
  user = await buildUser();
  const ws = await buildWorkspace({ members: [user.id] });
  workspaceId = ws.id;
  projectId = ws.projectIds[0]!;
  client = createClient({ baseUrl: api.baseUrl });
  await client.session.login(user.email, user.password);
  for (let i = 0; i < 11; i++) {
    const e = await client.trpc.entries.create.mutate({
      projectId,
      entryType: i % 2 ? 'INCOME' : 'EXPENSE',
      amountCents: 1000 + i,
      baseCurrency: 'USD',
      entryDate: `2026-04-${String(1 + (i % 4)).padStart(2, '0')}`,
      description: `Iterated ${i}`,
    });
    ids.push(e.id);
  }
});

describe('client.entries', () => {
  it('listAll yields every entry once, in the list order, across pages', async () => {
    const seen: number[] = [];
    for await (const entry of client.entries.listAll({ workspaceId, limit: 3, sortBy: 'amountCents', sortOrder: 'ASC' }))
      seen.push(entry.id);
    expect(seen).toEqual(ids); // amounts grow with the creation order
    const byOffset = await client.trpc.entries.list.query({ workspaceId, limit: 100, sortBy: 'entryDate', sortOrder: 'DESC' });
    const byDate: number[] = [];
    for await (const entry of client.entries.listAll({ workspaceId, limit: 4 })) byDate.push(entry.id);
    expect(byDate).toEqual(byOffset.items.map((e) => e.id));
  });

  it('pages yields each page with its total; the last one has nextCursor null', async () => {
    const pages = [];
    for await (const page of client.entries.pages({ workspaceId, limit: 4, entryType: 'INCOME' })) pages.push(page);
    expect(pages.map((p) => p.items.length)).toEqual([4, 1]);
    expect(pages.every((p) => p.total === 5)).toBe(true);
    expect(pages[0].nextCursor).toEqual(expect.any(String));
    expect(pages[1].nextCursor).toBeNull();
  });

  it('stops fetching when the caller breaks out', async () => {
    let fetched = 0;
    const counting = createClient({
      baseUrl: api.baseUrl,
      fetch: (input, init) => {
        if (String(input).includes('/trpc/entries.list')) fetched++;
        return globalThis.fetch(input, init);
      },
    });
    await counting.session.login(user.email, user.password);
    let n = 0;
    for await (const entry of counting.entries.listAll({ workspaceId, limit: 2 })) {
      expect(entry.workspaceId).toBe(workspaceId);
      if (++n === 3) break;
    }
    expect(fetched).toBe(2);
  });

  it('an empty list yields nothing after one request', async () => {
    const other = await buildWorkspace({ members: [user.id] });
    const items = [];
    for await (const entry of client.entries.listAll({ workspaceId: other.id })) items.push(entry);
    expect(items).toEqual([]);
  });
});
