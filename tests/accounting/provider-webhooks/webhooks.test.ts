import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closePeriod,
  createEntry,
  entryIn,
  createConnection,
  connectionBody,
  syncedEntry,
  syncWorld,
  type SyncWorld,
} from '../../support/factories/index.js';
import { events, getEntry, reopenPeriod } from '../../support/entries.js';
import { expectErrorBody, registerSecret, startServer, type Api, type ApiResponse } from '../../support/http.js';
import { expectOkBody, push, startEmulators, stopEmulators, syncOf, type Emulators } from '../sync/helpers.js';

/** POST /webhooks/accounting/{connectionId} (CONTRACT §10): the checks in order, replay protection, every action. */
let api: Api;
let e: Emulators;
let w: SyncWorld;
let qb: SyncWorld;
const SECRET = 'whsec-0123456789abcdef';
registerSecret(SECRET);
const VERIFIER = 'intuit-verifier-token';

beforeAll(async () => {
  api = await startServer();
  e = await startEmulators();
  w = await syncWorld(api, 'GENERIC', e, { config: { baseUrl: e.generic.baseUrl, webhookSecret: SECRET } });
  qb = await syncWorld(api, 'QUICKBOOKS', e, { credentials: e.qb.credentials({ extra: { webhookVerifierToken: VERIFIER } }) });
});
afterAll(() => stopEmulators(e));

function hook(connectionId: string, body: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  return api.request('POST', `/webhooks/accounting/${connectionId}`, {
    rawBody: raw,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}
const signed = (raw: string, token = VERIFIER) => createHmac('sha256', token).update(raw).digest('base64');
const withSecret = { 'X-Webhook-Secret': SECRET };
const eventId = () => `evt-${randomUUID()}`;

async function state(sw: SyncWorld, entryId: number) {
  return { entry: await getEntry(sw, entryId), events: (await events(sw, entryId)).length };
}

describe('checks, in order, before any action', () => {
  it('unknown or inactive connection → 404 (also with a malformed id, and before the secret check)', async () => {
    const entry = await createEntry(w);
    const body = { eventId: eventId(), action: 'ENTRY_APPROVED', entryId: entry.id };
    expectErrorBody(await hook(randomUUID(), body, withSecret), 404, 'NOT_FOUND');
    expectErrorBody(await hook('not-a-uuid', body), 404, 'NOT_FOUND');
    const inactive = await createConnection(
      w,
      connectionBody('GENERIC', e, { name: 'old', config: { baseUrl: e.generic.baseUrl, webhookSecret: SECRET } }),
    );
    await api.del(`/accounting/connections/${inactive.id}`, { token: w.token });
    expectErrorBody(await hook(inactive.id, body, withSecret), 404, 'NOT_FOUND');
    expectErrorBody(await hook(inactive.id, body), 404, 'NOT_FOUND');
  });

  it('a body nested thousands of levels deep is a 400, not a 500 (found by the fuzzer)', async () => {
    const res = await hook(w.connection.id, '['.repeat(5000) + ']'.repeat(5000), withSecret);
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(res.body.message).toMatch(/nested deeper/);
  });

  it('webhookSecret set: X-Webhook-Secret missing or different → 401 and nothing happens', async () => {
    const entry = await createEntry(w);
    const before = await state(w, entry.id);
    const body = { eventId: eventId(), action: 'ENTRY_APPROVED', entryId: entry.id };
    const attempts: Record<string, string>[] = [
      {},
      { 'X-Webhook-Secret': 'wrong' },
      { 'X-Webhook-Secret': SECRET.slice(0, -1) },
      { 'X-Webhook-Secret': `${SECRET}x` },
    ];
    for (const headers of attempts) {
      const res = await hook(w.connection.id, body, headers);
      expectErrorBody(res, 401, 'UNAUTHORIZED');
      expect(res.body.message).toMatch(/secret/);
    }
    expect(await state(w, entry.id)).toEqual(before);
    // a refused delivery did not use up the eventId
    expect(expectOkBody(await hook(w.connection.id, body, withSecret))).toEqual({
      received: true,
      action: 'ENTRY_APPROVED',
      entryId: entry.id,
    });
  });

  it('the secret is checked before the body: a malformed body with a wrong secret is 401, with the right one 400', async () => {
    expectErrorBody(await hook(w.connection.id, '{not json', { 'X-Webhook-Secret': 'nope' }), 401, 'UNAUTHORIZED');
    expectErrorBody(await hook(w.connection.id, '{not json', withSecret), 400, 'BAD_REQUEST');
    const unknownField = await hook(w.connection.id, { eventId: eventId(), action: 'ENTRY_APPROVED', entryId: 1, extra: true }, withSecret);
    expectErrorBody(unknownField, 400, 'BAD_REQUEST');
    expect(unknownField.body.issues).toBeInstanceOf(Array);
    expectErrorBody(await hook(w.connection.id, { eventId: eventId(), action: 'EXPLODE', entryId: 1 }, withSecret), 400, 'BAD_REQUEST');
    expectErrorBody(await hook(w.connection.id, { eventId: eventId(), action: 'ENTRY_UPDATED' }, withSecret), 400, 'BAD_REQUEST');
  });

  it('QUICKBOOKS with webhookVerifierToken: intuit-signature must be base64(HMAC-SHA256(token, raw body)) → else 401', async () => {
    const entry = await createEntry(qb);
    const before = await state(qb, entry.id);
    // odd spacing on purpose: the signature covers the bytes as sent, not a re-serialisation
    const raw = `{ "eventId": "${eventId()}",  "action": "ENTRY_UPDATED", "entryId": ${entry.id}, "changes": {"memo": "x"} }`;
    expectErrorBody(await hook(qb.connection.id, raw), 401, 'UNAUTHORIZED');
    expectErrorBody(await hook(qb.connection.id, raw, { 'intuit-signature': signed(raw, 'other-token') }), 401, 'UNAUTHORIZED');
    expectErrorBody(
      await hook(qb.connection.id, raw, { 'intuit-signature': signed(JSON.stringify(JSON.parse(raw))) }),
      401,
      'UNAUTHORIZED',
    );
    expectErrorBody(await hook(qb.connection.id, raw, { 'intuit-signature': 'short' }), 401, 'UNAUTHORIZED');
    expect(await state(qb, entry.id)).toEqual(before);
    const ok = await hook(qb.connection.id, raw, { 'intuit-signature': signed(raw) });
    expect(expectOkBody(ok)).toEqual({ received: true, action: 'ENTRY_UPDATED', entryId: entry.id });
  });

  it('with both a secret and a verifier token, the secret is checked first', async () => {
    const both = await createConnection(
      qb,
      connectionBody('QUICKBOOKS', e, {
        name: 'both',
        credentials: e.qb.credentials({ extra: { webhookVerifierToken: VERIFIER } }),
        config: { webhookSecret: SECRET },
      }),
    );
    const entry = await createEntry(qb);
    const raw = JSON.stringify({ eventId: eventId(), action: 'ENTRY_UPDATED', entryId: entry.id });
    const wrongSecret = await hook(both.id, raw, { 'X-Webhook-Secret': 'nope', 'intuit-signature': signed(raw) });
    expectErrorBody(wrongSecret, 401, 'UNAUTHORIZED');
    expect(wrongSecret.body.message).toMatch(/secret/);
    const wrongSignature = await hook(both.id, raw, { ...withSecret, 'intuit-signature': signed(raw, 'x') });
    expectErrorBody(wrongSignature, 401, 'UNAUTHORIZED');
    expect(wrongSignature.body.message).toMatch(/signature/);
    expect((await hook(both.id, raw, { ...withSecret, 'intuit-signature': signed(raw) })).status).toBe(200);
  });
});

describe('replay protection by eventId', () => {
  it('a repeated eventId is acknowledged as a duplicate and does nothing; another connection may use the same id', async () => {
    const entry = await createEntry(w);
    const id = eventId();
    expect(expectOkBody(await hook(w.connection.id, { eventId: id, action: 'ENTRY_APPROVED', entryId: entry.id }, withSecret)).action).toBe(
      'ENTRY_APPROVED',
    );
    const before = await state(w, entry.id);
    const again = await hook(w.connection.id, { eventId: id, action: 'ENTRY_REJECTED', entryId: entry.id, reason: 'x' }, withSecret);
    expect(expectOkBody(again)).toEqual({ received: true, duplicate: true });
    expect(await state(w, entry.id)).toEqual(before);
    expect(before.entry.entryStatus).toBe('COMPLETED');
    const qbEntry = await createEntry(qb);
    const raw = JSON.stringify({ eventId: id, action: 'ENTRY_UPDATED', entryId: qbEntry.id });
    expect(expectOkBody(await hook(qb.connection.id, raw, { 'intuit-signature': signed(raw) }))).toMatchObject({ action: 'ENTRY_UPDATED' });
  });

  it('parallel deliveries of one event: exactly one is processed', async () => {
    const entry = await createEntry(w);
    const body = { eventId: eventId(), action: 'DOCUMENT_REQUESTED', entryId: entry.id, documentName: 'Invoice', documentType: 'BASIS' };
    const results = await Promise.all(Array.from({ length: 8 }, () => hook(w.connection.id, body, withSecret)));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(results.filter((r) => r.body.duplicate === true)).toHaveLength(7);
    const docs = expectOkBody(await api.get(`/entries/${entry.id}/documents`, { token: w.token }));
    expect(docs).toHaveLength(1);
  });
});

describe('actions (events with actorType WEBHOOK, actorId = the connection)', () => {
  const send = (body: Record<string, unknown>) => hook(w.connection.id, { eventId: eventId(), ...body }, withSecret);

  it('ENTRY_APPROVED → COMPLETED, bypassing the status table (here from REJECTED)', async () => {
    const entry = await entryIn(w, 'REJECTED');
    expect(expectOkBody(await send({ action: 'ENTRY_APPROVED', entryId: entry.id }))).toEqual({
      received: true,
      action: 'ENTRY_APPROVED',
      entryId: entry.id,
    });
    expect((await getEntry(w, entry.id)).entryStatus).toBe('COMPLETED');
    const [received, changed] = (await events(w, entry.id)).slice(-2);
    expect(received).toMatchObject({ kind: 'WEBHOOK_RECEIVED', actorType: 'WEBHOOK', actorId: w.connection.id });
    expect(received.data).toMatchObject({ action: 'ENTRY_APPROVED', connectionId: w.connection.id });
    expect(changed).toMatchObject({
      kind: 'STATUS_CHANGED',
      actorType: 'WEBHOOK',
      actorId: w.connection.id,
      data: { from: 'REJECTED', to: 'COMPLETED' },
    });
  });

  it('ENTRY_REJECTED → REJECTED with the reason (here from COMPLETED)', async () => {
    const entry = await entryIn(w, 'COMPLETED');
    expectOkBody(await send({ action: 'ENTRY_REJECTED', entryId: entry.id, reason: 'Missing receipt' }));
    expect(await getEntry(w, entry.id)).toMatchObject({ entryStatus: 'REJECTED', statusReason: 'Missing receipt' });
    expect((await events(w, entry.id)).at(-1)).toMatchObject({ kind: 'STATUS_CHANGED', actorType: 'WEBHOOK' });
  });

  it('ENTRY_VOIDED → VOIDED; in a closed period 409 and nothing recorded (the eventId can come again)', async () => {
    const entry = await createEntry(w, { entryDate: '2025-05-05' });
    const period = await closePeriod(api, w.token, w.workspaceId, '2025-05-01', '2025-05-31');
    const before = await state(w, entry.id);
    const id = eventId();
    const refused = await hook(
      w.connection.id,
      { eventId: id, action: 'ENTRY_VOIDED', entryId: entry.id, reason: 'Voided in books' },
      withSecret,
    );
    expectErrorBody(refused, 409, 'CONFLICT');
    expect(await state(w, entry.id)).toEqual(before);
    await reopenPeriod(api, w.token, period.id);
    expectOkBody(
      await hook(w.connection.id, { eventId: id, action: 'ENTRY_VOIDED', entryId: entry.id, reason: 'Voided in books' }, withSecret),
    );
    expect(await getEntry(w, entry.id)).toMatchObject({ entryStatus: 'VOIDED', statusReason: 'Voided in books' });
    expect((await events(w, entry.id)).at(-1)).toMatchObject({ kind: 'VOIDED', actorType: 'WEBHOOK' });
  });

  it('status changes from VOIDED or CANCELLED are 409', async () => {
    for (const status of ['VOIDED', 'CANCELLED']) {
      const entry = await entryIn(w, status);
      for (const action of ['ENTRY_APPROVED', 'ENTRY_REJECTED', 'ENTRY_VOIDED']) {
        expectErrorBody(await send({ action, entryId: entry.id }), 409, 'CONFLICT');
      }
    }
  });

  it('DOCUMENT_REQUESTED → a REQUESTED document (documentName required)', async () => {
    const entry = await createEntry(w);
    expectErrorBody(await send({ action: 'DOCUMENT_REQUESTED', entryId: entry.id }), 400, 'BAD_REQUEST');
    expectOkBody(
      await send({
        action: 'DOCUMENT_REQUESTED',
        entryId: entry.id,
        documentName: 'Signed contract',
        documentType: 'SUPPORTING',
        comment: 'please',
      }),
    );
    const docs = expectOkBody(await api.get(`/entries/${entry.id}/documents`, { token: w.token }));
    expect(docs).toHaveLength(1);
    expect(docs[0]).toMatchObject({
      status: 'REQUESTED',
      documentName: 'Signed contract',
      documentType: 'SUPPORTING',
      comment: 'please',
      mimeType: null,
    });
    expect((await events(w, entry.id)).at(-1)).toMatchObject({
      kind: 'DOCUMENT_REQUESTED',
      actorType: 'WEBHOOK',
      actorId: w.connection.id,
    });
  });

  it('ENTRY_UPDATED → an ENTRY_UPDATED event keeping the changes; the entry itself is unchanged', async () => {
    const entry = await createEntry(w);
    const before = await getEntry(w, entry.id);
    const changes = { memo: { from: 'a', to: 'b' }, account: '6100' };
    expectOkBody(await send({ action: 'ENTRY_UPDATED', entryId: entry.id, changes }));
    const last = (await events(w, entry.id)).at(-1);
    expect(last).toMatchObject({ kind: 'ENTRY_UPDATED', actorType: 'WEBHOOK', actorId: w.connection.id });
    expect(last.data.changes).toEqual(changes);
    expect(await getEntry(w, entry.id)).toEqual(before);
  });

  it('the entry named by the externalId of its sync record on this connection; unknown externalId or another workspace’s entry → 404', async () => {
    const { entry, sync } = await syncedEntry(w);
    expect(expectOkBody(await send({ action: 'ENTRY_APPROVED', externalId: sync.externalId }))).toMatchObject({ entryId: entry.id });
    expect((await getEntry(w, entry.id)).entryStatus).toBe('COMPLETED');
    expectErrorBody(await send({ action: 'ENTRY_APPROVED', externalId: 'ext-does-not-exist' }), 404, 'NOT_FOUND');
    const foreign = await createEntry(qb);
    const before = await state(qb, foreign.id);
    expectErrorBody(await send({ action: 'ENTRY_APPROVED', entryId: foreign.id }), 404, 'NOT_FOUND');
    expectErrorBody(await send({ action: 'ENTRY_APPROVED', entryId: 999_999_999 }), 404, 'NOT_FOUND');
    expect(await state(qb, foreign.id)).toEqual(before);
    const other = await createEntry(w);
    expectErrorBody(await send({ action: 'ENTRY_APPROVED', entryId: other.id, externalId: sync.externalId }), 400, 'BAD_REQUEST');
  });

  it('a webhook void of a synced entry leaves its own connection’s record SYNCED and marks other connections’ STALE', async () => {
    const second = { ...w, connection: await createConnection(w, connectionBody('MANUAL', e, { name: 'mirror' })) };
    const { entry, sync } = await syncedEntry(w);
    expect(expectOkBody(await push(second, entry.id)).status).toBe('SYNCED');
    expectOkBody(await send({ action: 'ENTRY_VOIDED', externalId: sync.externalId }));
    expect((await syncOf(w, entry.id)).status).toBe('SYNCED');
    expect((await syncOf(second, entry.id)).status).toBe('STALE');
  });
});
