import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { onCleanup, waitFor } from './support/cleanup.js';
import { withClient } from './support/crash-checks.js';
import { buildCrashWorld } from './support/crash-world.js';
import type { CrashWorld } from './support/crash-load.js';
import { startOwnPostgres, type OwnPostgres } from './support/postgres.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';

/**
 * Outbound webhooks under faults (CONTRACT §15): the real server as a child process on a durable
 * PostgreSQL of its own. The server is SIGKILLed right after a batch of writes committed (more in
 * flight); after the restart every committed change's event is delivered (at least once, none
 * missing, each signed). Then the receiver goes down for a while and gets everything once it is back.
 *
 * The writes are entry creates (events from the ledger core's dispatcher) and period closes and
 * reopens (from the periods service), each event written in the transaction of its change.
 */

const PERIODS = Number(process.env.WEBHOOK_CRASH_PERIODS ?? 120);

/** A receiver on a fixed loopback port that can be taken down (connections refused) and brought back. */
function receiver() {
  const got = new Map<string, { type: string; objectId: string; count: number }>();
  let secret = '';
  let bad = 0;
  let server: http.Server | undefined;
  let port = 0;
  const handler: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const event = new Webhook(secret).verify(body, req.headers as Record<string, string>) as any;
        const seen = got.get(event.id);
        got.set(event.id, { type: event.type, objectId: event.data.object.id, count: (seen?.count ?? 0) + 1 });
        res.writeHead(200).end();
      } catch {
        bad++;
        res.writeHead(400).end();
      }
    });
  };
  const up = async () => {
    server = http.createServer(handler);
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  };
  const down = () =>
    new Promise<void>((resolve) => {
      server!.closeAllConnections();
      server!.close(() => resolve());
    });
  onCleanup('webhook receiver', async () => {
    if (server?.listening) await down();
  });
  return { got, up, down, url: () => `http://127.0.0.1:${port}/hook`, setSecret: (s: string) => (secret = s), bad: () => bad };
}

let pg: OwnPostgres;
let server: ServerProcess;
let w: CrashWorld;
const rx = receiver();
const dbUrl = () => pg.url('hooks');

beforeAll(async () => {
  pg = await startOwnPostgres('hooks');
  server = await startServerProcess(dbUrl(), {
    WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true',
    WEBHOOK_TIMEOUT_MS: '2000',
    WEBHOOK_RETRY_SCHEDULE: '1,2,2,2,2,2,2,2,2,2,2,2',
  });
  w = await buildCrashWorld(server.baseUrl);
  await rx.up();
  const ep = await w.api.post('/webhook-endpoints', { workspaceId: w.workspaceId, url: rx.url() }, { token: w.token });
  expect(ep.status, ep.text).toBe(200);
  rx.setSecret(ep.body.secret);
}, 180_000);
afterAll(() => rx.down().catch(() => undefined));

/** What committed, from the database itself: the events (what must be delivered), the periods and the entries. */
const committed = () =>
  withClient(dbUrl(), async (c) => {
    const { rows } = await c.query<{ id: string; type: string }>(
      `SELECT data->'object'->>'id' AS id, type FROM webhook_events WHERE workspace_id = $1 AND type <> 'webhook.test'`,
      [w.workspaceId],
    );
    const { rows: periods } = await c.query<{ id: string; status: string }>(
      'SELECT id, status FROM accounting_periods WHERE workspace_id = $1',
      [w.workspaceId],
    );
    const { rows: entries } = await c.query<{ id: string }>('SELECT id::text FROM entries WHERE workspace_id = $1', [w.workspaceId]);
    return { events: rows, periods, entries: entries.map((e) => e.id) };
  });

async function expectAllDelivered(label: string) {
  const { events } = await committed();
  const expected = new Set(events.map((e) => `${e.type}:${e.id}`));
  await waitFor(
    `${label}: every committed event delivered`,
    () => {
      const delivered = new Set([...rx.got.values()].map((g) => `${g.type}:${g.objectId}`));
      return [...expected].every((k) => delivered.has(k)) ? true : undefined;
    },
    120_000,
    200,
  );
  expect(rx.bad()).toBe(0);
  return expected.size;
}

describe('outbound webhooks under faults', () => {
  it('kill -9 right after a batch of writes commits: after the restart every committed change is delivered', async () => {
    const t = { token: w.token };
    const ids: string[] = [];
    for (let i = 0; i < PERIODS; i++) {
      const y = 1900 + i;
      const res = await w.api.post(
        '/accounting/periods',
        { workspaceId: w.workspaceId, name: `P${y}`, startDate: `${y}-01-01`, endDate: `${y}-01-31` },
        t,
      );
      expect(res.status, res.text).toBe(200);
      ids.push(res.body.id);
    }
    // close them 6 at a time while 4 clients create entries; kill the server once a third of the closes are acknowledged
    const acked = new Set<string>();
    const ackedEntries = new Set<string>();
    let next = 0;
    let killed = false;
    const closers = Array.from({ length: 6 }, async () => {
      while (next < ids.length && !killed) {
        const id = ids[next++]!;
        try {
          const res = await w.api.patch(`/accounting/periods/${id}/close`, undefined, t);
          if (res.status === 200) acked.add(id);
        } catch {
          return; // the server is gone
        }
      }
    });
    const creators = Array.from({ length: 4 }, async (_, k) => {
      for (let i = 0; !killed; i++) {
        try {
          const res = await w.api.post(
            '/entries',
            {
              projectId: w.projectId,
              entryType: 'EXPENSE',
              amountCents: 100 + i,
              baseCurrency: 'USD',
              entryDate: '2026-03-01',
              reference: `hook-${k}-${i}`,
            },
            t,
          );
          if (res.status === 200) ackedEntries.add(String(res.body.id));
        } catch {
          return;
        }
      }
    });
    await waitFor('a third of the closes acknowledged', () => (acked.size >= PERIODS / 3 ? true : undefined), 60_000, 5);
    await server.kill();
    killed = true;
    await Promise.all([...closers, ...creators]);
    const before = await committed();
    const closed = new Set(before.periods.filter((p) => p.status === 'CLOSED').map((p) => p.id));
    for (const id of acked) expect(closed.has(id), `acknowledged close of ${id} lost`).toBe(true);
    for (const id of ackedEntries) expect(before.entries, `acknowledged entry ${id} lost`).toContain(id);
    expect(ackedEntries.size).toBeGreaterThan(0);
    // the outbox is atomic with the change: every committed change has its event, nothing else has one
    expect(new Set(before.events.filter((e) => e.type === 'period.closed').map((e) => e.id))).toEqual(closed);
    expect(new Set(before.events.filter((e) => e.type === 'entry.created').map((e) => e.id))).toEqual(new Set(before.entries));
    await server.restart();
    const n = await expectAllDelivered('after restart');
    expect(n).toBe(closed.size + before.entries.length);
  }, 300_000);

  it('a receiver down for a while gets everything once it comes back', async () => {
    const { periods } = await committed();
    const closed = periods.filter((p) => p.status === 'CLOSED').slice(0, 20);
    await rx.down();
    const reopened: string[] = [];
    await Promise.all(
      closed.map(async (p) => {
        const res = await w.api.patch(`/accounting/periods/${p.id}/reopen`, undefined, { token: w.token });
        expect(res.status, res.text).toBe(200);
        reopened.push(p.id);
      }),
    );
    // attempts fail (connection refused) and are rescheduled meanwhile
    await waitFor(
      'failed attempts recorded',
      () =>
        withClient(dbUrl(), async (c) => {
          const { rows } = await c.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'PENDING' AND attempts > 0`,
          );
          return rows[0].n >= reopened.length ? true : undefined;
        }),
      30_000,
      200,
    );
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await rx.up();
    await expectAllDelivered('after the receiver came back');
    const delivered = new Set([...rx.got.values()].filter((g) => g.type === 'period.reopened').map((g) => g.objectId));
    for (const id of reopened) expect(delivered.has(id)).toBe(true);
    const [{ failed }] = await withClient(
      dbUrl(),
      async (c) =>
        (await c.query<{ failed: number }>(`SELECT count(*)::int AS failed FROM webhook_deliveries WHERE status = 'FAILED'`)).rows,
    );
    expect(failed).toBe(0);
  }, 300_000);
});
