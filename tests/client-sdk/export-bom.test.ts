import { beforeAll, describe, expect, it } from 'vitest';
import { createClient, ValidationError, type Client } from '../../client-sdk/src/index.js';
import { buildUser, buildWorkspace, type TestUser } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';

/** `GET /entries/export/csv?bom=true`: a UTF-8 byte-order mark before the header, for Excel (issue 31). */

const BOM = [0xef, 0xbb, 0xbf];
let api: Api;
let user: TestUser;
let client: Client;
let workspaceId: number;

beforeAll(async () => {
  api = await startServer();
  user = await buildUser();
  const ws = await buildWorkspace({ members: [user.id] });
  workspaceId = ws.id;
  client = createClient({ baseUrl: api.baseUrl, credentials: { email: user.email, password: user.password } });
  await client.trpc.entries.create.mutate({
    projectId: ws.projectIds[0]!,
    entryType: 'EXPENSE',
    amountCents: 1_999,
    baseCurrency: 'USD',
    entryDate: '2026-02-03',
    description: 'Größe Żółć Ελλάδα Москва',
  });
});

describe('CSV export byte-order mark', () => {
  it('starts with EF BB BF only when bom=true, and the rest is the same UTF-8 text', async () => {
    const plain = await (await client.files.exportEntriesCsv({ workspaceId })).bytes();
    const marked = await (await client.files.exportEntriesCsv({ workspaceId }, { bom: true })).bytes();
    expect([...marked.subarray(0, 3)]).toEqual(BOM);
    expect([...plain.subarray(0, 3)]).not.toEqual(BOM);
    expect(Buffer.from(marked.subarray(3)).equals(Buffer.from(plain))).toBe(true);
    expect(new TextDecoder().decode(plain)).toContain('Größe Żółć Ελλάδα Москва');
  });

  it('bom=false is the plain file and any other value a 400', async () => {
    const res = await client.rest.send('GET', '/entries/export/csv', { query: { workspaceId, bom: 'false' } });
    expect([...new Uint8Array(await res.arrayBuffer()).subarray(0, 3)]).not.toEqual(BOM);
    const error = await client.rest.send('GET', '/entries/export/csv', { query: { workspaceId, bom: 'yes' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
  });
});
