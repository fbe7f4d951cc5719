import { QueryTypes } from 'sequelize';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../../server/db/database.js';
import { runtime } from '../../../server/runtime.js';
import { useLookup } from '../../../server/domains/accounting/providers/address-guard.js';
import { createEntry, createConnection, connectionBody, syncWorld, type SyncWorld } from '../../support/factories/index.js';
import type { ApiResponse } from '../../support/http.js';
import { startServer } from '../../support/http.js';
import { startEmulatorServer, type EmulatorServer } from '../../emulators/http-server.js';
import { expectOkBody, push, startEmulators, stopEmulators, type Emulators } from '../../accounting/sync/helpers.js';

/**
 * Issue 10 — SSRF through a custom provider's `config.baseUrl` (CONTRACT §9); shared by
 * tests/cross-cutting/security/auth-attacks-ssrf.test.ts (the issue's targets, a 302) and
 * the long budget of npm run test:hard (every spelling, every redirect code). The guard
 * (server/domains/accounting/providers/address-guard.ts) and its classification are tested in
 * tests/accounting/sync/ssrf.test.ts (push, dry run, pulls and imports for 16 hosts, a name
 * resolving privately, a 307 redirect). Added here: more spellings of private targets, EVERY
 * operation that calls a provider (also retry, retry-batch and conflict resolution of existing
 * records), a name that rebinds to loopback between lookups, and 301/302/303/308 redirects to
 * loopback on every operation. Loopback targets use the port of a live local server, so a guard
 * that let one through would be seen reaching it.
 */

export type SsrfOptions = { allSpellings: boolean; redirectCodes: number[] };

export function ssrfSuite(opts: SsrfOptions): void {
  let e: Emulators;
  let w: SyncWorld;
  let calls = 0;

  beforeAll(async () => {
    const api = await startServer();
    e = await startEmulators(); // private hosts allowed while the world is set up (the emulator is on 127.0.0.1)
    w = await syncWorld(api, 'GENERIC', e);
  });
  afterEach(() => {
    runtime().config.ACCOUNTING_ALLOW_PRIVATE_HOSTS = true;
    useLookup(null);
  });
  afterAll(async () => {
    console.info(`SSRF probes: ${calls} provider-calling requests refused`);
    await stopEmulators(e);
  });

  const allowPrivate = (on: boolean) => (runtime().config.ACCOUNTING_ALLOW_PRIVATE_HOSTS = on);

  /** A connection to the emulator with one STALE and one CONFLICT sync record, then pointed at `baseUrl`. */
  async function connectionWithRecords(baseUrl: string) {
    const connection = await createConnection(w, connectionBody('GENERIC', e, { name: baseUrl.slice(0, 200) }));
    const sw = { ...w, connection };
    const stale = await createEntry(w);
    expect(expectOkBody(await push(sw, stale.id)).status).toBe('SYNCED');
    expect((await w.api.patch(`/entries/${stale.id}`, { description: 'changed' }, { token: w.token })).status).toBe(200);
    const conflicted = await createEntry(w);
    const conflict = expectOkBody(await push(sw, conflicted.id));
    await db().query(`UPDATE accounting_syncs SET status = 'CONFLICT' WHERE id = :id`, {
      replacements: { id: conflict.id },
      type: QueryTypes.UPDATE,
    });
    const staleSync = (expectOkBody(await w.api.get(`/accounting/sync/entry/${stale.id}`, { token: w.token })) as any[])[0];
    expect(staleSync.status).toBe('STALE');
    const patched = await w.api.patch(`/accounting/connections/${connection.id}`, { config: { baseUrl } }, { token: w.token });
    expect(patched.status, patched.text).toBe(200);
    return { sw, staleSyncId: staleSync.id as string, conflictSyncId: conflict.id as string, fresh: (await createEntry(w)).id as number };
  }

  /** Every operation that makes the adapter call the provider. */
  function providerCalls(c: Awaited<ReturnType<typeof connectionWithRecords>>): [string, () => Promise<ApiResponse>, string[]][] {
    const t = { token: w.token };
    const connectionId = c.sw.connection.id;
    return [
      ['push', () => push(c.sw, c.fresh), []],
      ['push dry run', () => push(c.sw, c.fresh, { dryRun: true }), []],
      ['pull', () => w.api.post('/accounting/sync/pull', { connectionId }, t), []],
      ['pull-chart-of-accounts', () => w.api.post('/accounting/sync/pull-chart-of-accounts', { connectionId }, t), []],
      ['pull-parties', () => w.api.post('/accounting/sync/pull-parties', { connectionId }, t), []],
      ['retry (STALE)', () => w.api.post(`/accounting/syncs/${c.staleSyncId}/retry`, undefined, t), [c.staleSyncId]],
      [
        'retry-batch',
        () => w.api.post('/accounting/syncs/retry-batch', { syncIds: [c.staleSyncId, c.conflictSyncId] }, t),
        [c.staleSyncId, c.conflictSyncId],
      ],
      ['retry (CONFLICT)', () => w.api.post(`/accounting/syncs/${c.conflictSyncId}/retry`, undefined, t), [c.conflictSyncId]],
      [
        'resolve KEEP_LOCAL',
        () => w.api.post('/accounting/sync/resolve-conflict', { syncId: c.conflictSyncId, resolution: 'KEEP_LOCAL' }, t),
        [c.conflictSyncId],
      ],
    ];
  }

  /** The lastError of a sync record, as its entry's sync list shows it. */
  async function lastErrorOf(syncId: string): Promise<string> {
    const [row] = await db().query<{ entry_id: number }>('SELECT entry_id FROM accounting_syncs WHERE id = :id', {
      replacements: { id: syncId },
      type: QueryTypes.SELECT,
    });
    const list = expectOkBody(await w.api.get(`/accounting/sync/entry/${row.entry_id}`, { token: w.token })) as any[];
    const record = list.find((r) => r.id === syncId);
    return `${record.status}: ${record.lastError ?? ''}`;
  }

  /**
   * Refused: a 400 naming the reason, or a failure (retry and batch answer `success: false`) whose
   * record's lastError names it. Never a success.
   */
  async function refusal(res: ApiResponse, pattern: RegExp, records: string[]): Promise<string | undefined> {
    if (res.status === 400) return pattern.test(res.body?.message ?? '') ? undefined : `400 without the reason: ${res.text}`;
    if (res.status === 200 && (res.body?.success === false || res.body?.status === 'FAILED')) {
      if (pattern.test(res.text)) return undefined;
      // retry-batch counts the refused records as failed and leaves them as they were
      if (res.body.retried === 0 && res.body.failed === records.length && records.length > 1) return undefined;
      const errors = await Promise.all(records.map(lastErrorOf));
      return errors.every((err) => pattern.test(err)) ? undefined : `failure without the reason: ${res.text} / ${errors.join(' / ')}`;
    }
    return `not refused: ${res.status} ${res.text.slice(0, 300)}`;
  }

  async function expectAllRefused(baseUrl: string, pattern: RegExp): Promise<string[]> {
    const c = await connectionWithRecords(baseUrl);
    allowPrivate(false);
    const seen = e.generic.requests.length;
    const problems: string[] = [];
    for (const [name, call, records] of providerCalls(c)) {
      calls++;
      const problem = await refusal(await call(), pattern, records);
      if (problem) problems.push(`${baseUrl} ${name}: ${problem}`);
    }
    if (e.generic.requests.length !== seen)
      problems.push(`${baseUrl}: the provider was reached ${e.generic.requests.length - seen} time(s)`);
    allowPrivate(true);
    return problems;
  }

  const GUARD = /only public addresses may be called|does not resolve/;

  describe('private targets are refused on every provider-calling operation', () => {
    /** The issue's list: loopback v4/v6, the metadata address, a hex spelling, the private ranges, a local name. */
    const issueTargets = (p: number) => [
      `http://127.0.0.1:${p}`,
      `http://[::1]:${p}`,
      'http://169.254.169.254/latest/meta-data',
      `http://0x7f000001:${p}`,
      'http://10.0.0.1',
      'http://172.31.255.254',
      'http://192.168.0.1',
      `http://localhost:${p}`,
    ];
    const moreTargets = (p: number) => [
      'http://169.254.169.254./latest',
      `http://0x7f.0.0.1:${p}`,
      `http://127.1:${p}`,
      `http://0177.0.0.1:${p}`,
      `http://0:${p}`,
      `http://[0:0:0:0:0:ffff:7f00:1]:${p}`,
      'http://[::ffff:169.254.169.254]',
      'http://[fd00:ec2::254]',
      'http://100.100.100.200',
      `http://LOCALHOST:${p}`,
      `https://127.0.0.1:${p}`,
    ];

    it(`loopback, link-local/metadata, private${opts.allSpellings ? ' and odd spellings of them' : ''}`, async () => {
      const problems: string[] = [];
      const targets = [...issueTargets(e.generic.port), ...(opts.allSpellings ? moreTargets(e.generic.port) : [])];
      for (const target of targets) problems.push(...(await expectAllRefused(target, GUARD)));
      expect(problems).toEqual([]);
    });

    it('a URL carrying credentials (user:password@host) is refused when saved, on create and on update', async () => {
      const url = `http://user:secret@127.0.0.1:${e.generic.port}`;
      const created = await w.api.post(
        '/accounting/connections',
        { ...connectionBody('GENERIC', e), config: { baseUrl: url } },
        { token: w.token },
      );
      expect(created.status, created.text).toBe(400);
      const updated = await w.api.patch(`/accounting/connections/${w.connection.id}`, { config: { baseUrl: url } }, { token: w.token });
      expect(updated.status, updated.text).toBe(400);
      expect(created.text + updated.text).not.toContain('secret');
    });

    it('a name resolving to a private address (stub resolver: books.example.test → 10.0.0.1)', async () => {
      useLookup(async () => [{ address: '10.0.0.1', family: 4 }]);
      expect(await expectAllRefused('http://books.example.test', /books\.example\.test.*10\.0\.0\.1.*only public addresses/)).toEqual([]);
    });

    it('a name that resolves publicly first and to loopback afterwards (DNS rebinding) never reaches loopback', async () => {
      let lookups = 0;
      useLookup(async () => (lookups++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]));
      expect(await expectAllRefused(`http://rebind.example.test:${e.generic.port}`, GUARD)).toEqual([]);
      expect(lookups).toBeGreaterThan(1);
    });
  });

  describe('redirects to loopback are never followed (private hosts allowed so the redirector itself can be reached)', () => {
    let target: EmulatorServer;
    let redirector: EmulatorServer;
    let status = 302;
    beforeAll(async () => {
      target = await startEmulatorServer(() => ({
        status: 200,
        body: { externalId: 'stolen', version: '1', entries: [], accounts: [], parties: [] },
      }));
      redirector = await startEmulatorServer((r) => ({ status, headers: { Location: `http://127.0.0.1:${target.port}${r.path}` } }));
    });
    afterAll(async () => {
      await target.close();
      await redirector.close();
    });

    it.each(opts.redirectCodes)('%i on every provider-calling operation: refused, the loopback target never called', async (code) => {
      status = code;
      const c = await connectionWithRecords(redirector.baseUrl);
      const problems: string[] = [];
      for (const [name, call, records] of providerCalls(c)) {
        if (name === 'push dry run') continue; // a dry run makes no call to follow
        calls++;
        const res = await call();
        const problem =
          res.status >= 400 && /redirect/.test(res.text) ? undefined : await refusal(res, /redirects are not followed/, records);
        if (problem) problems.push(`${name}: ${problem}`);
      }
      expect(problems).toEqual([]);
      expect(redirector.requests.length).toBeGreaterThan(0);
      expect(target.requests).toHaveLength(0);
    });
  });
}
