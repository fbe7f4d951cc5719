import { expect } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../../server/db/database.js';
import { runtime } from '../../../server/runtime.js';
import { events, getEntry } from '../../support/entries.js';
import { GENERIC_TOKEN, type SyncWorld } from '../../support/factories/index.js';
import type { ApiResponse } from '../../support/http.js';
import { startGenericProvider, type GenericProvider } from '../../emulators/generic-provider.js';
import { startQuickBooksEmulator, type QbEmulator } from '../../emulators/quickbooks-emulator.js';

export type Emulators = { qb: QbEmulator; generic: GenericProvider };

/**
 * Both emulators for a test file, and the runtime pointed at them: private hosts allowed (they
 * listen on 127.0.0.1), QuickBooks URLs at the emulator, short timeouts and backoff.
 */
export async function startEmulators(): Promise<Emulators> {
  const qb = await startQuickBooksEmulator();
  const generic = await startGenericProvider({ token: GENERIC_TOKEN });
  useEmulators(qb);
  return { qb, generic };
}

export function useEmulators(qb: QbEmulator): void {
  const config = runtime().config;
  config.ACCOUNTING_ALLOW_PRIVATE_HOSTS = true;
  config.QUICKBOOKS_API_BASE_URL = qb.baseUrl;
  config.QUICKBOOKS_TOKEN_URL = qb.tokenUrl;
  config.ACCOUNTING_PROVIDER_TIMEOUT_MS = 2_000;
  config.ACCOUNTING_PROVIDER_RETRY_BASE_MS = 5;
}

export async function stopEmulators(e: Emulators | undefined): Promise<void> {
  await e?.qb.close();
  await e?.generic.close();
}

export const push = (w: SyncWorld, entryId: number, body: Record<string, unknown> = {}, token = w.token) =>
  w.api.post('/accounting/sync/push', { entryId, connectionId: w.connection.id, ...body }, { token });

export const pull = (w: SyncWorld, body: Record<string, unknown> = {}) =>
  w.api.post('/accounting/sync/pull', { connectionId: w.connection.id, ...body }, { token: w.token });

export const resolve = (w: SyncWorld, syncId: string, resolution: string) =>
  w.api.post('/accounting/sync/resolve-conflict', { syncId, resolution }, { token: w.token });

export const retry = (w: SyncWorld, syncId: string) => w.api.post(`/accounting/syncs/${syncId}/retry`, undefined, { token: w.token });

export function expectOkBody(res: ApiResponse): any {
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** The entry's sync record on the world's connection, as the API shows it. */
export async function syncOf(w: SyncWorld, entryId: number): Promise<any> {
  const res = await w.api.get(`/accounting/sync/entry/${entryId}`, { token: w.token });
  const list = expectOkBody(res) as any[];
  return list.find((s) => s.connectionId === w.connection.id) ?? null;
}

/** How many requests the world's provider has received (QuickBooks: API calls only, not the token endpoint). */
export function providerRequests(w: SyncWorld): number {
  if (w.kind === 'QUICKBOOKS') return w.e.qb.requests.filter((r) => r.path.startsWith(`/v3/company/`)).length;
  if (w.kind === 'GENERIC') return w.e.generic.requests.length;
  return 0;
}

/** Records created in the provider. */
export function providerCreates(w: SyncWorld): number {
  if (w.kind === 'QUICKBOOKS')
    return (
      w.e.qb.calls('/purchase').filter((r) => !r.body?.Id && !r.query.get('operation')).length +
      w.e.qb.calls('/deposit').filter((r) => !r.body?.Id).length
    );
  return w.e.generic.creates().length;
}

/** The external record as the provider holds it, in the generic adapter's terms. */
export function external(w: SyncWorld, externalId: string, entity: 'Purchase' | 'Deposit' = 'Purchase') {
  if (w.kind === 'QUICKBOOKS') {
    const t = (entity === 'Purchase' ? w.e.qb.purchases : w.e.qb.deposits).get(externalId)!;
    return {
      version: t.SyncToken,
      amountCents: Math.round(t.TotalAmt * 100),
      entryDate: t.TxnDate,
      description: t.PrivateNote ?? null,
      reference: (entity === 'Purchase' ? t.DocNumber : t.Line?.[0]?.DepositLineDetail?.CheckNum) ?? null,
      voided: t.deleted === true,
    };
  }
  const r = w.e.generic.records.get(externalId)!;
  return {
    version: r.version,
    amountCents: r.amountCents,
    entryDate: r.entryDate,
    description: r.description,
    reference: r.reference,
    voided: r.voided,
  };
}

/** A change made in the external system (version bumps). */
export function editExternally(
  w: SyncWorld,
  externalId: string,
  changes: { amountCents?: number; description?: string; entryDate?: string; voided?: boolean },
) {
  if (w.kind === 'QUICKBOOKS' && changes.voided) {
    w.e.qb.deleteExternally('Purchase', externalId);
    return 'deleted';
  }
  if (w.kind === 'QUICKBOOKS') {
    return w.e.qb.editExternally('Purchase', externalId, {
      ...(changes.amountCents !== undefined ? { TotalAmt: changes.amountCents / 100 } : {}),
      ...(changes.description !== undefined ? { PrivateNote: changes.description } : {}),
      ...(changes.entryDate !== undefined ? { TxnDate: changes.entryDate } : {}),
    }).SyncToken;
  }
  return w.e.generic.editExternally(externalId, changes).version;
}

/** Puts the external record's version back (tests of "unchanged since our last sync"). */
export function setExternalVersion(w: SyncWorld, externalId: string, version: string): void {
  if (w.kind === 'QUICKBOOKS') w.e.qb.setSyncToken('Purchase', externalId, version);
  else w.e.generic.setVersion(externalId, version);
}

/** Makes the provider answer the next `times` requests with HTTP `status` (QuickBooks: its fault body). */
export function failNext(w: SyncWorld, status: number, times = 1, extra: { delayMs?: number; drop?: boolean } = {}) {
  const body =
    w.kind === 'QUICKBOOKS'
      ? { Fault: { Error: [{ Message: `Injected ${status}`, code: '0' }], type: 'SystemFault' } }
      : { error: `injected ${status}` };
  const target = w.kind === 'QUICKBOOKS' ? w.e.qb : w.e.generic;
  target.inject({
    status: extra.delayMs || extra.drop ? undefined : status,
    body,
    times,
    ...extra,
    match: (r) => !r.path.startsWith('/oauth2'),
  });
}

export async function eventKinds(w: SyncWorld, entryId: number): Promise<string[]> {
  return (await events(w, entryId)).map((e: any) => e.kind);
}

export async function syncRows(entryId: number): Promise<any[]> {
  return db().query('SELECT * FROM accounting_syncs WHERE entry_id = :entryId ORDER BY created_at, id', {
    replacements: { entryId },
    type: QueryTypes.SELECT,
  });
}

/** Proof that a refused call changed nothing: the entry, its events, its sync rows and the provider's request count. */
export async function syncSnapshot(w: SyncWorld, entryId: number) {
  return {
    entry: await getEntry(w, entryId),
    events: (await events(w, entryId)).length,
    syncs: await syncRows(entryId),
    requests: providerRequests(w),
  };
}
