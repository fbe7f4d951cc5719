import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runtime } from '../../../server/runtime.js';
import { loadConnection } from '../../../server/domains/accounting/connections/connection-rows.js';
import { readCredentials } from '../../../server/domains/accounting/connections/connection-secrets.js';
import { createEntry, PROVIDERS, syncedEntry, syncWorld, type SyncWorld } from '../../support/factories/index.js';
import { startServer, type Api } from '../../support/http.js';
import { QB_THROTTLED, QB_UNAVAILABLE } from '../../emulators/quickbooks-emulator.js';
import {
  editExternally,
  expectOkBody,
  failNext,
  providerCreates,
  providerRequests,
  pull,
  push,
  startEmulators,
  stopEmulators,
  syncOf,
  type Emulators,
} from './helpers.js';

/**
 * Provider faults (CONTRACT §9): timeouts and network errors and 5xx are retried at most twice
 * with backoff, then FAILED; 4xx (429 included) is final at once; QuickBooks tokens are refreshed
 * and stored encrypted; QuickBooks faults (stale object, closed period) name their cause.
 */
let api: Api;
let e: Emulators;

beforeAll(async () => {
  api = await startServer();
  e = await startEmulators();
});
afterEach(() => {
  e.qb.clearFaults();
  e.generic.clearFaults();
  runtime().config.ACCOUNTING_PROVIDER_TIMEOUT_MS = 2_000;
});
afterAll(() => stopEmulators(e));

describe.each(PROVIDERS)('faults with %s', (kind) => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await syncWorld(api, kind, e);
  });

  it('5xx is retried twice (3 requests) then FAILED; 5xx twice then success → SYNCED with one external record', async () => {
    const entry = await createEntry(w);
    let requests = providerRequests(w);
    failNext(w, 500, 3);
    const failed = expectOkBody(await push(w, entry.id));
    expect(failed).toMatchObject({ status: 'FAILED', attempts: 1 });
    expect(failed.lastError).toMatch(/500/);
    expect(providerRequests(w) - requests).toBe(3);

    const stored = () => (kind === 'QUICKBOOKS' ? e.qb.purchases.size : e.generic.records.size);
    const before = stored();
    const creates = providerCreates(w);
    requests = providerRequests(w);
    failNext(w, 503, 2);
    const ok = expectOkBody(await push(w, entry.id));
    expect(ok).toMatchObject({ status: 'SYNCED', attempts: 2 });
    expect(providerRequests(w) - requests).toBe(3);
    expect(providerCreates(w) - creates).toBe(3);
    expect(stored() - before).toBe(1);
  });

  it('a timeout is retried like a network error: three timeouts → FAILED naming the timeout', async () => {
    runtime().config.ACCOUNTING_PROVIDER_TIMEOUT_MS = 150;
    const entry = await createEntry(w);
    const requests = providerRequests(w);
    failNext(w, 0, 3, { delayMs: 600 });
    const started = Date.now();
    const failed = expectOkBody(await push(w, entry.id));
    const elapsed = Date.now() - started;
    expect(failed.status).toBe('FAILED');
    expect(failed.lastError).toMatch(/did not answer within 150 ms/);
    expect(providerRequests(w) - requests).toBe(3);
    expect(elapsed).toBeGreaterThanOrEqual(3 * 150);
  });

  it('a timeout then an answer: SYNCED, and the retried create made only one external record (idempotency key)', async () => {
    runtime().config.ACCOUNTING_PROVIDER_TIMEOUT_MS = 150;
    const description = `slow-${Math.random().toString(36).slice(2)}`;
    const entry = await createEntry(w, { description });
    const recordsOfEntry = () =>
      kind === 'QUICKBOOKS'
        ? [...e.qb.purchases.values()].filter((p) => p.PrivateNote === description).length
        : [...e.generic.records.values()].filter((r) => r.description === description).length;
    // the first create is processed by the provider, but answered too late
    const target = kind === 'QUICKBOOKS' ? e.qb : e.generic;
    target.inject({ delayMs: 400, match: (r) => r.method === 'POST' && !r.path.startsWith('/oauth2') });
    const ok = expectOkBody(await push(w, entry.id));
    expect(ok.status).toBe('SYNCED');
    await new Promise((r) => setTimeout(r, 500)); // the slow request finishes in the emulator
    expect(recordsOfEntry()).toBe(1);
    const creates =
      kind === 'QUICKBOOKS'
        ? e.qb.calls('/purchase').filter((r) => r.body?.PrivateNote === description)
        : e.generic.creates().filter((r: any) => r.body?.description === description);
    expect(creates).toHaveLength(2);
  });

  it('a dropped connection is retried; dropped three times → FAILED naming the connection failure', async () => {
    const entry = await createEntry(w);
    failNext(w, 0, 3, { drop: true });
    const failed = expectOkBody(await push(w, entry.id));
    expect(failed.status).toBe('FAILED');
    expect(failed.lastError).toMatch(/connection failed/);
  });

  it('429 is final at once (one request) → FAILED naming the throttling', async () => {
    const entry = await createEntry(w);
    const requests = providerRequests(w);
    if (kind === 'QUICKBOOKS') e.qb.inject({ ...QB_THROTTLED, match: (r) => !r.path.startsWith('/oauth2') });
    else e.generic.inject({ status: 429, headers: { 'Retry-After': '30' }, body: { error: 'slow down' } });
    const failed = expectOkBody(await push(w, entry.id));
    expect(failed.status).toBe('FAILED');
    expect(failed.lastError).toMatch(kind === 'QUICKBOOKS' ? /throttled.*429 ThrottleExceeded/ : /429 \(Retry-After 30\)/);
    expect(providerRequests(w) - requests).toBe(1);
  });

  it('another 4xx is final at once → FAILED with the provider’s message', async () => {
    const entry = await createEntry(w);
    const requests = providerRequests(w);
    failNext(w, 400, 1);
    const failed = expectOkBody(await push(w, entry.id));
    expect(failed.status).toBe('FAILED');
    expect(failed.lastError).toMatch(/400/);
    expect(providerRequests(w) - requests).toBe(1);
  });

  it('a 2xx answer of the wrong shape is refused by the response schema → FAILED', async () => {
    const entry = await createEntry(w);
    const target = kind === 'QUICKBOOKS' ? e.qb : e.generic;
    target.inject({
      status: kind === 'QUICKBOOKS' ? 200 : 201,
      body: { id: 42 },
      match: (r) => r.method === 'POST' && !r.path.startsWith('/oauth2'),
    });
    const failed = expectOkBody(await push(w, entry.id));
    expect(failed).toMatchObject({ status: 'FAILED', externalId: null });
    expect(failed.lastError).toMatch(/unexpected body/);
  });
});

describe('QuickBooks specifics', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await syncWorld(api, 'QUICKBOOKS', e);
  });

  async function storedCredentials(connectionId: string) {
    const row = await loadConnection(null, connectionId);
    return { row, credentials: readCredentials(row) };
  }

  it('an access token about to expire is refreshed before the call; the new tokens are stored encrypted', async () => {
    const soon = await syncWorld(api, 'QUICKBOOKS', e, { credentials: e.qb.credentials({ expiresInSeconds: 60 }) });
    const before = await storedCredentials(soon.connection.id);
    const refreshes = e.qb.tokenRefreshes();
    const entry = await createEntry(soon);
    expect(expectOkBody(await push(soon, entry.id)).status).toBe('SYNCED');
    expect(e.qb.tokenRefreshes() - refreshes).toBe(1);
    const after = await storedCredentials(soon.connection.id);
    expect(after.credentials.accessToken).not.toBe(before.credentials.accessToken);
    expect(after.credentials.refreshToken).not.toBe(before.credentials.refreshToken);
    expect(Date.parse(after.credentials.tokenExpiresAt as string) - Date.now()).toBeGreaterThan(50 * 60_000);
    expect(after.credentials).toMatchObject({ realmId: e.qb.realmId, clientId: e.qb.clientId });
    // stored encrypted: the new token is not in the ciphertext, and the ciphertext changed
    expect(after.row.credentials_ciphertext.equals(before.row.credentials_ciphertext)).toBe(false);
    expect(after.row.credentials_ciphertext.toString('latin1')).not.toContain(after.credentials.accessToken as string);
    const token = e.qb.calls('/purchase').at(-1)!.headers.authorization;
    expect(token).toBe(`Bearer ${after.credentials.accessToken}`);
    // a second push uses the stored token without refreshing again
    const second = await createEntry(soon);
    expect(expectOkBody(await push(soon, second.id)).status).toBe('SYNCED');
    expect(e.qb.tokenRefreshes() - refreshes).toBe(1);
  });

  it('an expired token refused by QuickBooks (401 AuthenticationFailed 3200) is refreshed once and the call repeated', async () => {
    const entry = await createEntry(w);
    e.qb.expireAccessTokens();
    const refreshes = e.qb.tokenRefreshes();
    const creates = e.qb.calls('/purchase').length;
    const ok = expectOkBody(await push(w, entry.id));
    expect(ok.status).toBe('SYNCED');
    expect(e.qb.tokenRefreshes() - refreshes).toBe(1);
    expect(e.qb.calls('/purchase').length - creates).toBe(2); // refused, then accepted
  });

  it('a refresh QuickBooks refuses (invalid_grant) fails the push, naming the cause', async () => {
    const broken = await syncWorld(api, 'QUICKBOOKS', e, {
      credentials: { ...e.qb.credentials({ expiresInSeconds: 10 }), refreshToken: 'rt-revoked' },
    });
    const entry = await createEntry(broken);
    const failed = expectOkBody(await push(broken, entry.id));
    expect(failed.status).toBe('FAILED');
    expect(failed.lastError).toMatch(/token refresh failed \(400\).*invalid_grant/);
  });

  it('5xx of QuickBooks (503 SystemFault) is retried then FAILED', async () => {
    const entry = await createEntry(w);
    e.qb.inject({ ...QB_UNAVAILABLE, times: 3, match: (r) => !r.path.startsWith('/oauth2') });
    const failed = expectOkBody(await push(w, entry.id));
    expect(failed.status).toBe('FAILED');
    expect(failed.lastError).toMatch(/503.*SystemFault/);
  });

  it('stale object (5010): an update with an outdated SyncToken → FAILED naming it; a pull then shows the CONFLICT', async () => {
    const { entry, sync } = await syncedEntry(w);
    await pull(w);
    editExternally(w, sync.externalId, { description: 'changed in QuickBooks' });
    await api.patch(`/entries/${entry.id}`, { description: 'changed here' }, { token: w.token });
    const failed = expectOkBody(await push(w, entry.id));
    expect(failed.status).toBe('FAILED');
    expect(failed.lastError).toMatch(/stale object \(5010\)/);
    expect(expectOkBody(await pull(w))).toMatchObject({ conflicts: 1 });
    expect((await syncOf(w, entry.id)).status).toBe('CONFLICT');
  });

  it('closed period in QuickBooks (6210) → FAILED naming it', async () => {
    const entry = await createEntry(w, { entryDate: '2024-06-30' });
    e.qb.closeBooksThrough('2024-12-31');
    try {
      const failed = expectOkBody(await push(w, entry.id));
      expect(failed.status).toBe('FAILED');
      expect(failed.lastError).toMatch(/period is closed in QuickBooks \(6210\)/);
    } finally {
      e.qb.closeBooksThrough(null);
    }
  });

  it('INCOME is pushed as a Deposit, EXPENSE as a Purchase, with the configured accounts and the party mapping', async () => {
    const vendorMapping = await api.post(
      '/accounting/mappings/parties',
      { connectionId: w.connection.id, partyId: w.parties[1], externalId: '56', externalType: 'Vendor', externalName: 'Globex' },
      { token: w.token },
    );
    expect(vendorMapping.status, vendorMapping.text).toBe(200);
    const expense = await createEntry(w, { entryType: 'EXPENSE', amountCents: 4_250, reference: 'A-REFERENCE-LONGER-THAN-21' });
    const income = await createEntry(w, { entryType: 'INCOME', amountCents: 9_900, reference: 'R-1' });
    const p = expectOkBody(await push(w, expense.id));
    const d = expectOkBody(await push(w, income.id));
    const purchase = e.qb.purchases.get(p.externalId)!;
    expect(purchase).toMatchObject({
      PaymentType: 'Cash',
      AccountRef: { value: '35' },
      TotalAmt: 42.5,
      TxnDate: '2026-01-15',
      DocNumber: 'A-REFERENCE-LONGER-TH',
      EntityRef: { value: '56', type: 'Vendor' },
    });
    expect(purchase.Line[0]).toMatchObject({
      DetailType: 'AccountBasedExpenseLineDetail',
      AccountBasedExpenseLineDetail: { AccountRef: { value: '7' } },
    });
    const deposit = e.qb.deposits.get(d.externalId)!;
    expect(deposit).toMatchObject({ DepositToAccountRef: { value: '35' }, TotalAmt: 99 });
    expect(deposit.Line[0]).toMatchObject({
      DetailType: 'DepositLineDetail',
      DepositLineDetail: { AccountRef: { value: '4' }, CheckNum: 'R-1' },
    });
    // the cut reference coming back in a pull is not a change
    await pull(w);
    e.qb.editExternally('Purchase', p.externalId, { PrivateNote: 'note from QuickBooks' });
    expect(expectOkBody(await pull(w))).toMatchObject({ updated: 1 });
    const entryRes = await api.get(`/entries/${expense.id}`, { token: w.token });
    expect(entryRes.body).toMatchObject({ reference: 'A-REFERENCE-LONGER-THAN-21', description: 'note from QuickBooks' });
  });

  it('change data capture asks for at most the last 30 days (its limit), whatever `since` says', async () => {
    const since = new Date(Date.now() - 90 * 24 * 3_600_000).toISOString();
    expect((await pull(w, { since })).status).toBe(200);
    const cdc = e.qb.calls('/cdc', 'GET').at(-1)!;
    expect(cdc.query.get('entities')).toBe('Purchase,Deposit');
    const asked = Date.parse(cdc.query.get('changedSince')!);
    expect(Date.now() - asked).toBeLessThanOrEqual(30 * 24 * 3_600_000 + 60_000);
    expect(Date.now() - asked).toBeGreaterThan(29 * 24 * 3_600_000);
  });

  it('a missing account in the config fails the push with a message naming the key', async () => {
    const bare = await syncWorld(api, 'QUICKBOOKS', e, { config: {} });
    const entry = await createEntry(bare);
    const failed = expectOkBody(await push(bare, entry.id));
    expect(failed.status).toBe('FAILED');
    expect(failed.lastError).toMatch(/config\.paymentAccountId/);
  });
});
