import { createHmac, randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../../server/db/database.js';
import { createEntry, accountingWorld, createConnection, type AccountingWorld } from '../../support/factories/index.js';
import { expectErrorBody, startServer, type Api, type ApiResponse } from '../../support/http.js';

/**
 * Issue 10 — attacks on POST /webhooks/accounting/{connectionId} (CONTRACT §10), measured by the
 * whole database: every refused delivery, for EVERY action, leaves the row counts of the tables a
 * webhook can touch and the target entry exactly as they were. tests/accounting/provider-webhooks/webhooks.test.ts
 * checks the order of the checks and each action; this adds every action × every forgery, the
 * database-wide "0 side effects" measure, replays of every action and cross-tenant deliveries.
 */

const SECRET = `whsec-${randomUUID()}`;
const VERIFIER = `verifier-${randomUUID()}`;
const ACTIONS = ['ENTRY_APPROVED', 'ENTRY_REJECTED', 'ENTRY_VOIDED', 'DOCUMENT_REQUESTED', 'ENTRY_UPDATED'] as const;

let api: Api;
let w: AccountingWorld;
let other: AccountingWorld;
let secretConnection: any;
let signedConnection: any;
let deliveries = 0;

beforeAll(async () => {
  api = await startServer();
  w = await accountingWorld(api);
  other = await accountingWorld(api);
  secretConnection = await createConnection(w, { name: 'with secret', config: { webhookSecret: SECRET } });
  signedConnection = await createConnection(w, {
    name: 'signed',
    providerType: 'QUICKBOOKS',
    credentials: { realmId: 'realm-1', accessToken: 'at', refreshToken: 'rt', webhookVerifierToken: VERIFIER },
    config: {},
  });
});

function body(action: (typeof ACTIONS)[number], entryId: number, eventId = `evt-${randomUUID()}`): Record<string, unknown> {
  const extra: Record<string, Record<string, unknown>> = {
    ENTRY_REJECTED: { reason: 'attack' },
    ENTRY_VOIDED: { reason: 'attack' },
    DOCUMENT_REQUESTED: { documentName: 'Attack', documentType: 'BASIS' },
    ENTRY_UPDATED: { changes: { memo: 'attack' } },
  };
  return { eventId, action, entryId, ...(extra[action] ?? {}) };
}

function deliver(connectionId: string, raw: string, headers: Record<string, string> = {}): Promise<ApiResponse> {
  deliveries++;
  return api.request('POST', `/webhooks/accounting/${connectionId}`, {
    rawBody: raw,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

const sign = (raw: string, token = VERIFIER) => createHmac('sha256', token).update(raw).digest('base64');

/** Row counts of every table a webhook can write, and the entries' own rows. */
async function snapshot(): Promise<unknown> {
  const [counts] = await db().query(
    `SELECT (SELECT count(*) FROM entries) AS entries,
            (SELECT count(*) FROM entry_events) AS events,
            (SELECT count(*) FROM entry_documents) AS documents,
            (SELECT count(*) FROM entry_links) AS links,
            (SELECT count(*) FROM accounting_webhook_events) AS webhook_events,
            (SELECT count(*) FROM accounting_syncs) AS syncs,
            (SELECT count(*) FROM accounting_reviews) AS reviews`,
    { type: QueryTypes.SELECT },
  );
  const entries = await db().query('SELECT id, entry_status, status_reason, is_complete, updated_at FROM entries ORDER BY id', {
    type: QueryTypes.SELECT,
  });
  return { counts, entries };
}

describe('refused deliveries change nothing anywhere', () => {
  it('every action with the secret missing, wrong, truncated, extended, re-cased, or sent elsewhere → 401', async () => {
    const entry = await createEntry(w);
    const before = await snapshot();
    const wrongSecrets: Record<string, string>[] = [
      {},
      { 'X-Webhook-Secret': '' },
      { 'X-Webhook-Secret': 'wrong' },
      { 'X-Webhook-Secret': SECRET.slice(0, -1) },
      { 'X-Webhook-Secret': `${SECRET}0` },
      { 'X-Webhook-Secret': SECRET.toUpperCase() },
      { Authorization: `Bearer ${SECRET}` },
      { 'X-Webhook-Signature': SECRET },
      { 'X-Webhook-Secret': `${SECRET},${SECRET}` },
    ];
    for (const action of ACTIONS) {
      const raw = JSON.stringify(body(action, entry.id));
      for (const headers of wrongSecrets) {
        const res = await deliver(secretConnection.id, raw, headers);
        expectErrorBody(res, 401, 'UNAUTHORIZED');
        expect(res.text).not.toContain(SECRET);
      }
      // the secret in the query string is not the header
      const inQuery = await api.request('POST', `/webhooks/accounting/${secretConnection.id}?secret=${SECRET}`, {
        rawBody: raw,
        headers: { 'Content-Type': 'application/json' },
      });
      deliveries++;
      expectErrorBody(inQuery, 401, 'UNAUTHORIZED');
    }
    expect(await snapshot()).toEqual(before);
  });

  it('every action with the provider signature missing, keyed wrongly, over other bytes, hex-encoded or truncated → 401', async () => {
    const entry = await createEntry(w);
    const before = await snapshot();
    for (const action of ACTIONS) {
      // spacing on purpose: the signature covers the bytes as sent
      const raw = JSON.stringify(body(action, entry.id), null, 1);
      const forged: Record<string, string>[] = [
        {},
        { 'intuit-signature': '' },
        { 'intuit-signature': sign(raw, 'another-verifier') },
        { 'intuit-signature': sign(JSON.stringify(JSON.parse(raw))) },
        { 'intuit-signature': createHmac('sha256', VERIFIER).update(raw).digest('hex') },
        { 'intuit-signature': sign(raw).slice(0, -4) },
        { 'X-Webhook-Secret': sign(raw) },
      ];
      for (const headers of forged) expectErrorBody(await deliver(signedConnection.id, raw, headers), 401, 'UNAUTHORIZED');
      // a correctly signed body with one byte changed after signing
      const altered = raw.replace('"evt-', '"evu-');
      expect(altered).not.toBe(raw);
      expectErrorBody(await deliver(signedConnection.id, altered, { 'intuit-signature': sign(raw) }), 401, 'UNAUTHORIZED');
    }
    expect(await snapshot()).toEqual(before);
  });

  it('deliveries naming another workspace’s entry, or an unknown/inactive connection → 404, nothing done', async () => {
    const foreign = await createEntry(other);
    const mine = await createEntry(w);
    const inactive = await createConnection(w, { name: 'inactive', config: { webhookSecret: SECRET } });
    expect((await api.del(`/accounting/connections/${inactive.id}`, { token: w.token })).status).toBe(200);
    const before = await snapshot();
    for (const action of ACTIONS) {
      expectErrorBody(
        await deliver(secretConnection.id, JSON.stringify(body(action, foreign.id)), { 'X-Webhook-Secret': SECRET }),
        404,
        'NOT_FOUND',
      );
      expectErrorBody(await deliver(randomUUID(), JSON.stringify(body(action, mine.id)), { 'X-Webhook-Secret': SECRET }), 404, 'NOT_FOUND');
      expectErrorBody(await deliver(inactive.id, JSON.stringify(body(action, mine.id)), { 'X-Webhook-Secret': SECRET }), 404, 'NOT_FOUND');
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe('replays', () => {
  it('a replayed eventId — same body, or the same id carrying any other action — is a duplicate and changes nothing', async () => {
    for (const first of ACTIONS) {
      const entry = await createEntry(w);
      const eventId = `evt-${randomUUID()}`;
      const accepted = await deliver(secretConnection.id, JSON.stringify(body(first, entry.id, eventId)), { 'X-Webhook-Secret': SECRET });
      expect(accepted.status, `${first}: ${accepted.text}`).toBe(200);
      expect(accepted.body).toMatchObject({ received: true, action: first });
      const before = await snapshot();
      for (const action of ACTIONS) {
        const replay = await deliver(secretConnection.id, JSON.stringify(body(action, entry.id, eventId)), { 'X-Webhook-Secret': SECRET });
        expect(replay.status).toBe(200);
        expect(replay.body).toEqual({ received: true, duplicate: true });
      }
      const parallel = await Promise.all(
        Array.from({ length: 4 }, () =>
          deliver(secretConnection.id, JSON.stringify(body(first, entry.id, eventId)), { 'X-Webhook-Secret': SECRET }),
        ),
      );
      expect(parallel.map((r) => r.body)).toEqual(Array(4).fill({ received: true, duplicate: true }));
      expect(await snapshot(), `replays of ${first}`).toEqual(before);
    }
  });

  it('a signed delivery replayed with its valid signature is a duplicate too', async () => {
    const entry = await createEntry(w);
    const raw = JSON.stringify(body('ENTRY_UPDATED', entry.id));
    expect((await deliver(signedConnection.id, raw, { 'intuit-signature': sign(raw) })).status).toBe(200);
    const before = await snapshot();
    const again = await deliver(signedConnection.id, raw, { 'intuit-signature': sign(raw) });
    expect(again.body).toEqual({ received: true, duplicate: true });
    expect(await snapshot()).toEqual(before);
    console.info(`webhook attacks: ${deliveries} deliveries`);
  });
});
