import { expect } from 'vitest';
import { registerSecret } from '../../cross-cutting/security/secret-scan.js';
import type { Emulators } from '../../accounting/sync/helpers.js';
import { expectOk } from '../entries.js';
import type { Api } from '../http.js';
import { createEntry, entryWorld, type EntryWorld } from './entries.js';

/** The accounting suites build on the one entries world (./entries.ts), with two projects unless told. */
export type AccountingWorld = EntryWorld;
export const accountingWorld = (api: Api, opts: Parameters<typeof entryWorld>[1] = {}) => entryWorld(api, { projects: 2, ...opts });

/** `POST /accounting/connections` with a MANUAL provider by default; returns the connection. */
export async function createConnection(w: AccountingWorld, body: Record<string, unknown> = {}, api: Api = w.api): Promise<any> {
  const res = await api.post(
    '/accounting/connections',
    { workspaceId: w.workspaceId, providerType: 'MANUAL', name: 'Books', credentials: { apiKey: 'not-a-real-key' }, ...body },
    { token: w.token },
  );
  expectOk(res, 'create connection');
  return res.body;
}

export async function createCategory(w: AccountingWorld, body: Record<string, unknown> = {}): Promise<any> {
  const res = await w.api.post(
    '/accounting/categories',
    {
      workspaceId: w.workspaceId,
      code: `C${Math.random().toString(36).slice(2, 8)}`,
      name: 'Office supplies',
      accountType: 'EXPENSE',
      ...body,
    },
    { token: w.token },
  );
  expectOk(res, 'create category');
  return res.body;
}

/* ---------- reviews ---------- */

export type ReviewWorld = AccountingWorld & { connection: any };

/** A workspace whose one connection (MANUAL provider, `syncMode` as given) requires review of every project. */
export async function reviewWorld(api: Api, connection: Record<string, unknown> = {}): Promise<ReviewWorld> {
  const w = await accountingWorld(api);
  return { ...w, connection: await createConnection(w, { requireReview: true, ...connection }) };
}

/** A new entry, auto-queued for review; returns it with its review (as the API shows it). */
export async function queuedEntry(w: ReviewWorld, overrides: Record<string, unknown> = {}): Promise<{ entry: any; review: any }> {
  const entry = await createEntry(w, overrides);
  const res = await w.api.get('/accounting/reviews', { token: w.token, query: { workspaceId: w.workspaceId, entryId: entry.id } });
  expect(res.status, res.text).toBe(200);
  expect(res.body.items).toHaveLength(1);
  return { entry, review: res.body.items[0] };
}

/* ---------- sync: connections to the provider emulators (tests/accounting/sync/helpers.ts starts them) ---------- */

export type ProviderKind = 'QUICKBOOKS' | 'GENERIC';
export const PROVIDERS: ProviderKind[] = ['QUICKBOOKS', 'GENERIC'];
export const GENERIC_TYPE = 'ACME_BOOKS';
export const GENERIC_TOKEN = 'generic-provider-token';
registerSecret(GENERIC_TOKEN);

/** The QuickBooks accounts the emulator knows (config of every QUICKBOOKS test connection). */
export const QB_CONFIG = { paymentAccountId: '35', depositAccountId: '35', expenseAccountId: '7', incomeAccountId: '4' };

export type SyncWorld = AccountingWorld & { kind: ProviderKind | 'MANUAL'; connection: any; e: Emulators };

/** Connection fields for a provider kind (no review, no completeness needed, MANUAL_PUSH unless overridden). */
export function connectionBody(
  kind: ProviderKind | 'MANUAL',
  e: Emulators,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  const base = { requireReview: false, requireCompletenessForSync: false, syncMode: 'MANUAL_PUSH', name: `${kind} books` };
  if (kind === 'QUICKBOOKS') {
    const credentials = e.qb.credentials();
    for (const key of ['accessToken', 'refreshToken']) registerSecret(String(credentials[key]));
    return { ...base, providerType: 'QUICKBOOKS', credentials, config: QB_CONFIG, ...overrides };
  }
  if (kind === 'GENERIC') {
    return {
      ...base,
      providerType: GENERIC_TYPE,
      credentials: { accessToken: GENERIC_TOKEN },
      config: { baseUrl: e.generic.baseUrl },
      ...overrides,
    };
  }
  return { ...base, providerType: 'MANUAL', credentials: { note: 'none' }, ...overrides };
}

export async function syncWorld(
  api: Api,
  kind: ProviderKind | 'MANUAL',
  e: Emulators,
  overrides: Record<string, unknown> = {},
): Promise<SyncWorld> {
  const w = await accountingWorld(api);
  const connection = await createConnection(w, connectionBody(kind, e, overrides));
  return { ...w, kind, connection, e };
}

/** A pushed, SYNCED entry (`POST /accounting/sync/push` on the world's connection). */
export async function syncedEntry(w: SyncWorld, overrides: Record<string, unknown> = {}): Promise<{ entry: any; sync: any }> {
  const entry = await createEntry(w, overrides);
  const res = await w.api.post('/accounting/sync/push', { entryId: entry.id, connectionId: w.connection.id }, { token: w.token });
  expect(res.status, res.text).toBe(200);
  const sync = res.body;
  expect(sync.status).toBe('SYNCED');
  return { entry, sync };
}
