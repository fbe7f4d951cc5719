import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runtime } from '../../../server/runtime.js';
import { nonPublicReason, resolveTarget, useLookup } from '../../../server/domains/accounting/providers/address-guard.js';
import { createEntry, createConnection, connectionBody, GENERIC_TYPE, syncWorld, type SyncWorld } from '../../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../../support/http.js';
import { startEmulatorServer, type EmulatorServer } from '../../emulators/http-server.js';
import { expectOkBody, push, startEmulators, stopEmulators, syncSnapshot, type Emulators } from './helpers.js';

/**
 * The SSRF guard of the generic adapter (CONTRACT §9): a baseUrl resolving to a loopback,
 * private, link-local (…) address is refused with 400 unless ACCOUNTING_ALLOW_PRIVATE_HOSTS;
 * the address checked is the one connected to; redirects are never followed.
 */
let api: Api;
let e: Emulators;
let w: SyncWorld;

beforeAll(async () => {
  api = await startServer();
  e = await startEmulators();
  w = await syncWorld(api, 'GENERIC', e);
});
afterEach(() => {
  runtime().config.ACCOUNTING_ALLOW_PRIVATE_HOSTS = true;
  useLookup(null);
  e.generic.clearFaults();
});
afterAll(() => stopEmulators(e));

describe('address classification', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified ("this network")'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback'],
    ['::ffff:10.1.2.3', 'IPv4-mapped private'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped link-local'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 link-local'],
    ['2002:7f00:1::', '6to4 loopback'],
    ['255.255.255.255', 'reserved'],
  ])('%s is refused (%s)', (address, reason) => {
    expect(nonPublicReason(address)).toBe(reason);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])(
    '%s is public',
    (address) => {
      expect(nonPublicReason(address)).toBeNull();
    },
  );

  it('a name is refused when ANY of its addresses is private, and the first address is the one returned', async () => {
    runtime().config.ACCOUNTING_ALLOW_PRIVATE_HOSTS = false;
    useLookup(async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ]);
    await expect(resolveTarget('mixed.example.test', { guard: true })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    useLookup(async () => [{ address: '93.184.216.34', family: 4 }]);
    await expect(resolveTarget('public.example.test', { guard: true })).resolves.toEqual({ address: '93.184.216.34', family: 4 });
  });
});

describe('through the API, with ACCOUNTING_ALLOW_PRIVATE_HOSTS off', () => {
  const hosts = (port: number) => [
    `http://127.0.0.1:${port}`,
    `http://[::1]:${port}`,
    'http://169.254.169.254/latest',
    `http://0x7f000001:${port}`,
    `http://2130706433:${port}`,
    `http://017700000001:${port}`,
    'http://10.0.0.5',
    'http://172.16.3.4',
    'http://192.168.1.20',
    `http://localhost:${port}`,
    `http://[::ffff:127.0.0.1]:${port}`,
    'http://100.64.1.1',
    `http://0.0.0.0:${port}`,
    'http://[fd00::1]',
    'http://[fe80::1]',
    'http://224.0.0.1',
  ];

  it('each refused host is refused when a connection is created or pointed at it (400), and nothing is saved', async () => {
    runtime().config.ACCOUNTING_ALLOW_PRIVATE_HOSTS = false;
    const before = (await api.get('/accounting/connections', { token: w.token, query: { workspaceId: w.workspaceId } })).body;
    for (const baseUrl of hosts(e.generic.port)) {
      const created = await api.post(
        '/accounting/connections',
        { workspaceId: w.workspaceId, ...connectionBody('GENERIC', e, { name: baseUrl, config: { baseUrl } }) },
        {
          token: w.token,
        },
      );
      expectErrorBody(created, 400, 'BAD_REQUEST');
      expect(created.body.message, baseUrl).toMatch(/only public addresses may be called/);
      const updated = await api.patch(`/accounting/connections/${w.connection.id}`, { config: { baseUrl } }, { token: w.token });
      expectErrorBody(updated, 400, 'BAD_REQUEST');
    }
    expect((await api.get('/accounting/connections', { token: w.token, query: { workspaceId: w.workspaceId } })).body).toEqual(before);
    useLookup(async () => [{ address: '192.168.7.7', family: 4 }]);
    const body = { workspaceId: w.workspaceId, ...connectionBody('GENERIC', e, { config: { baseUrl: 'https://books.example.test' } }) };
    const named = await api.post('/accounting/connections', body, { token: w.token });
    expectErrorBody(named, 400, 'BAD_REQUEST');
    expect(named.body.message, named.text).toMatch(/books\.example\.test.*192\.168\.7\.7.*private/);
  });

  it('each refused host (saved while private hosts were allowed): push, dry run, pull and imports answer 400 and nothing changes; the provider is never called', async () => {
    for (const baseUrl of hosts(e.generic.port)) {
      runtime().config.ACCOUNTING_ALLOW_PRIVATE_HOSTS = true;
      const connection = await createConnection(w, connectionBody('GENERIC', e, { name: baseUrl, config: { baseUrl } }));
      runtime().config.ACCOUNTING_ALLOW_PRIVATE_HOSTS = false;
      const sw = { ...w, connection };
      const entry = await createEntry(w);
      const before = await syncSnapshot(sw, entry.id);
      const seen = e.generic.requests.length;
      const refused = await push(sw, entry.id);
      expectErrorBody(refused, 400, 'BAD_REQUEST');
      expect(refused.body.message).toMatch(/only public addresses may be called/);
      expectErrorBody(await push(sw, entry.id, { dryRun: true }), 400, 'BAD_REQUEST');
      expectErrorBody(await api.post('/accounting/sync/pull', { connectionId: connection.id }, { token: w.token }), 400, 'BAD_REQUEST');
      for (const path of ['pull-chart-of-accounts', 'pull-parties']) {
        expectErrorBody(
          await api.post(`/accounting/sync/${path}`, { connectionId: connection.id }, { token: w.token }),
          400,
          'BAD_REQUEST',
        );
      }
      expect(await syncSnapshot(sw, entry.id)).toEqual(before);
      expect(e.generic.requests.length, baseUrl).toBe(seen);
    }
  });

  it('a name resolving to a private address is refused at the resolved address', async () => {
    useLookup(async () => [{ address: '192.168.7.7', family: 4 }]);
    const connection = await createConnection(w, connectionBody('GENERIC', e, { config: { baseUrl: 'https://books.example.test' } }));
    runtime().config.ACCOUNTING_ALLOW_PRIVATE_HOSTS = false;
    const res = await push({ ...w, connection }, (await createEntry(w)).id);
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(res.body.message).toMatch(/books\.example\.test.*192\.168\.7\.7.*private/);
  });

  it('an approval push to a refused host records FAILED with the refusal as lastError (the review stays APPROVED)', async () => {
    const aw = await syncWorld(api, 'GENERIC', e, {
      syncMode: 'AUTO_PUSH',
      requireReview: true,
      config: { baseUrl: `http://127.0.0.1:${e.generic.port}` },
    });
    runtime().config.ACCOUNTING_ALLOW_PRIVATE_HOSTS = false;
    const entry = await createEntry(aw);
    const reviews = await api.get('/accounting/reviews', { token: aw.token, query: { workspaceId: aw.workspaceId, entryId: entry.id } });
    const approved = await api.patch(`/accounting/reviews/${reviews.body.items[0].id}/approve`, {}, { token: aw.token });
    expect(approved.status).toBe(200);
    expect(approved.body.status).toBe('APPROVED');
    const syncs = expectOkBody(await api.get(`/accounting/sync/entry/${entry.id}`, { token: aw.token }));
    expect(syncs).toHaveLength(1);
    expect(syncs[0].status).toBe('FAILED');
    expect(syncs[0].lastError).toMatch(/only public addresses/);
  });
});

describe('pinning and redirects (private hosts allowed, so the local emulators can be reached)', () => {
  it('connects to the address the guard resolved: a made-up name resolved once per request to the emulator works', async () => {
    const lookups: string[] = [];
    useLookup(async (host) => {
      lookups.push(host);
      return [{ address: '127.0.0.1', family: 4 }];
    });
    const connection = await createConnection(
      w,
      connectionBody('GENERIC', e, { config: { baseUrl: `http://books.example.test:${e.generic.port}` } }),
    );
    const seen = e.generic.requests.length;
    const synced = expectOkBody(await push({ ...w, connection }, (await createEntry(w)).id));
    expect(synced.status).toBe('SYNCED');
    expect(e.generic.requests.slice(seen).map((r) => r.headers.host)).toEqual([`books.example.test:${e.generic.port}`]);
    // once for the up-front check, once for the request itself (which connects to what that lookup returned)
    expect(lookups).toEqual(['books.example.test', 'books.example.test']);
  });

  it('a name that does not resolve is a 400', async () => {
    useLookup(async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    });
    const connection = await createConnection(w, connectionBody('GENERIC', e, { config: { baseUrl: 'http://nowhere.invalid' } }));
    const res = await push({ ...w, connection }, (await createEntry(w)).id);
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(res.body.message).toMatch(/does not resolve/);
  });

  it('a redirect (here to the metadata address, and to another local server) is never followed → FAILED', async () => {
    const target: EmulatorServer = await startEmulatorServer(() => ({ status: 201, body: { externalId: 'stolen', version: '1' } }));
    try {
      for (const location of ['http://169.254.169.254/latest/meta-data/', `${target.baseUrl}/entries`]) {
        e.generic.inject({ status: 307, headers: { Location: location } });
        const failed = expectOkBody(await push(w, (await createEntry(w)).id));
        expect(failed.status).toBe('FAILED');
        expect(failed.lastError).toMatch(/redirect \(307\).*redirects are not followed/);
        expect(failed.lastError).toContain(location);
      }
      expect(target.requests).toHaveLength(0);
    } finally {
      await target.close();
    }
  });

  it(`the same loopback baseUrl is accepted once ACCOUNTING_ALLOW_PRIVATE_HOSTS is on (custom type ${GENERIC_TYPE})`, async () => {
    const connection = await createConnection(
      w,
      connectionBody('GENERIC', e, { config: { baseUrl: `http://localhost:${e.generic.port}` } }),
    );
    expect(expectOkBody(await push({ ...w, connection }, (await createEntry(w)).id)).status).toBe('SYNCED');
  });
});
