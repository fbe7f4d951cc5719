import type { z } from 'zod/v4';
import { runtime } from '../../../../runtime.js';
import type { ConnectionRow } from '../../connections/connection-rows.js';
import { jsonOf, refuseRedirect, send, type HttpAnswer, type HttpCall } from '../http-client.js';
import type {
  AccountingProvider,
  ExternalAccount,
  ExternalEntry,
  ExternalParty,
  ExternalRef,
  OutboundEntry,
  PushedRecord,
  RequestPreview,
} from '../provider.js';
import { ProviderError } from '../provider-error.js';
import { parseAnswer } from '../validate-response.js';
import { isObjectNotFound, quickBooksFailure } from './quickbooks-faults.js';
import {
  accountOf,
  DELETED_VERSION,
  deletedEntry,
  depositEntry,
  DOC_NUMBER_MAX,
  entityOf,
  isDeleted,
  partyOf,
  purchaseEntry,
  transactionBody,
  type QbEntity,
} from './quickbooks-mapping.js';
import {
  QbCdcAnswer,
  QbDepositAnswer,
  QbPurchaseAnswer,
  QbQueryAnswer,
  type QbAccount,
  type QbDeleted,
  type QbDeposit,
  type QbNamedParty,
  type QbPurchase,
} from './quickbooks-schemas.js';
import { freshCredentials, refreshAfterRejection, type QbCredentials } from './quickbooks-tokens.js';

export const MINOR_VERSION = '75';
const LABEL = 'QuickBooks';
type QueryRows = { Account: QbAccount[]; Vendor: QbNamedParty[]; Customer: QbNamedParty[] };
const PAGE_SIZE = 1000;
/** Change data capture looks back at most 30 days: a first pull starts there. */
const CDC_LOOKBACK_MS = 30 * 24 * 3_600_000;
/** The most objects one change data capture answer holds (QuickBooks' limit). */
const CDC_MAX_OBJECTS = 1000;

/**
 * QUICKBOOKS: the QuickBooks Online Accounting API v3 at QUICKBOOKS_API_BASE_URL (an operator
 * setting, so not subject to the SSRF guard of user-supplied URLs). Purchase for EXPENSE, Deposit
 * for INCOME, full updates with the SyncToken we last saw, delete for a voided entry, change data
 * capture for pulls, queries for Account / Vendor / Customer.
 */
export class QuickBooksProvider implements AccountingProvider {
  readonly referenceMaxLength = DOC_NUMBER_MAX;
  private credentials: QbCredentials | null = null;

  constructor(
    private readonly connection: ConnectionRow,
    private readonly realmId: string,
  ) {}

  private get homeCurrency(): string {
    const c = this.connection.config.homeCurrency;
    return typeof c === 'string' && /^[A-Z]{3}$/.test(c) ? c : 'USD';
  }

  private url(path: string, query: Record<string, string> = {}): string {
    const base = runtime().config.QUICKBOOKS_API_BASE_URL.replace(/\/+$/, '');
    const params = new URLSearchParams({ ...query, minorversion: MINOR_VERSION });
    return `${base}/v3/company/${encodeURIComponent(this.realmId)}${path}?${params.toString()}`;
  }

  async assertTarget(): Promise<void> {}

  async prepare(): Promise<void> {
    this.credentials = await freshCredentials(this.connection.id);
  }

  /** One API call with the access token; a 401 refreshes the token once and repeats the call. */
  private async authed(call: HttpCall): Promise<HttpAnswer> {
    this.credentials ??= await freshCredentials(this.connection.id);
    const attempt = (token: string) =>
      send({ ...call, headers: { ...call.headers, Authorization: `Bearer ${token}` } }, { guard: false, label: LABEL });
    let answer = await attempt(this.credentials.accessToken);
    if (answer.status === 401) {
      this.credentials = await refreshAfterRejection(this.connection.id, this.credentials.accessToken);
      answer = await attempt(this.credentials.accessToken);
    }
    return answer;
  }

  private async call<T extends z.ZodType>(call: HttpCall, schema: T): Promise<z.infer<T>> {
    const answer = await this.authed(call);
    refuseRedirect(answer, LABEL);
    if (answer.status !== 200) throw quickBooksFailure(answer);
    return parseAnswer(schema, jsonOf(answer, LABEL), LABEL, answer.status);
  }

  private transactionPath(entity: QbEntity): string {
    return `/${entity.toLowerCase()}`;
  }

  previewCreate(entry: OutboundEntry, idempotencyKey: string): RequestPreview {
    return {
      method: 'POST',
      url: this.url(this.transactionPath(entityOf(entry.entryType)), { requestid: idempotencyKey }),
      body: transactionBody(entry, this.connection.config),
    };
  }

  previewUpdate(ref: ExternalRef, entry: OutboundEntry): RequestPreview {
    const path = this.transactionPath(entityOf(entry.entryType));
    if (entry.voided) {
      return { method: 'POST', url: this.url(path, { operation: 'delete' }), body: { Id: ref.externalId, SyncToken: ref.version ?? '0' } };
    }
    const body = { ...transactionBody(entry, this.connection.config), Id: ref.externalId, SyncToken: ref.version ?? '0', sparse: false };
    return { method: 'POST', url: this.url(path), body };
  }

  private async write(entity: QbEntity, preview: RequestPreview): Promise<PushedRecord> {
    const call: HttpCall = { method: 'POST', url: preview.url!, json: preview.body };
    const object: QbPurchase | QbDeposit | QbDeleted =
      entity === 'Purchase' ? (await this.call(call, QbPurchaseAnswer)).Purchase : (await this.call(call, QbDepositAnswer)).Deposit;
    return { externalId: object.Id, version: isDeleted(object) ? DELETED_VERSION : object.SyncToken };
  }

  async pushCreate(entry: OutboundEntry, idempotencyKey: string): Promise<PushedRecord> {
    return this.write(entityOf(entry.entryType), this.previewCreate(entry, idempotencyKey));
  }

  async pushUpdate(ref: ExternalRef, entry: OutboundEntry): Promise<PushedRecord> {
    if (ref.version === DELETED_VERSION) {
      throw new ProviderError('The QuickBooks record was deleted; it cannot be updated', 'HTTP', 400);
    }
    return this.write(entityOf(entry.entryType), this.previewUpdate(ref, entry));
  }

  private toEntry(object: QbPurchase | QbDeposit | QbDeleted, entity: QbEntity): ExternalEntry {
    if (isDeleted(object)) return deletedEntry(object);
    return entity === 'Purchase'
      ? purchaseEntry(object as QbPurchase, this.homeCurrency)
      : depositEntry(object as QbDeposit, this.homeCurrency);
  }

  async fetchOne(ref: ExternalRef & { entryType: OutboundEntry['entryType'] }): Promise<ExternalEntry | null> {
    const entity = entityOf(ref.entryType);
    const call: HttpCall = { method: 'GET', url: this.url(`${this.transactionPath(entity)}/${encodeURIComponent(ref.externalId)}`) };
    try {
      const answer =
        entity === 'Purchase' ? (await this.call(call, QbPurchaseAnswer)).Purchase : (await this.call(call, QbDepositAnswer)).Deposit;
      return this.toEntry(answer, entity);
    } catch (err) {
      if (err instanceof ProviderError && isObjectNotFound(err)) return null;
      throw err;
    }
  }

  /**
   * Every change since `since`. One CDC answer holds at most CDC_MAX_OBJECTS objects, so a full one
   * is followed by another from the latest LastUpdatedTime it held (objects seen twice count once,
   * the later copy wins) until an answer is not full: nothing changed is left unread, so the pull
   * may move lastPulledAt past it. A full answer that does not advance the time cannot be paged
   * further: that is an error (nothing is applied, lastPulledAt stays), never a silent cut.
   */
  async listChangedSince(since: Date | null): Promise<ExternalEntry[]> {
    // QuickBooks answers change data capture for the last 30 days only: an older `since` starts there
    const earliest = Date.now() - CDC_LOOKBACK_MS;
    let changedSince = new Date(Math.max(since?.getTime() ?? earliest, earliest)).toISOString();
    const changes = new Map<string, ExternalEntry>();
    for (;;) {
      const answer = await this.call({ method: 'GET', url: this.url('/cdc', { entities: 'Purchase,Deposit', changedSince }) }, QbCdcAnswer);
      let count = 0;
      let latest = changedSince;
      for (const group of answer.CDCResponse[0].QueryResponse ?? []) {
        const objects = [
          ...(group.Purchase ?? []).map((o) => ['Purchase', o] as const),
          ...(group.Deposit ?? []).map((o) => ['Deposit', o] as const),
        ];
        for (const [entity, object] of objects) {
          count++;
          changes.set(`${entity}:${object.Id}`, this.toEntry(object, entity));
          const at = object.MetaData?.LastUpdatedTime;
          if (at && Date.parse(at) > Date.parse(latest)) latest = new Date(Date.parse(at)).toISOString();
        }
      }
      if (count < CDC_MAX_OBJECTS) return [...changes.values()];
      if (latest === changedSince) {
        throw new ProviderError(`QuickBooks reported ${count} or more changes at ${latest}; they cannot be paged`, 'INVALID_RESPONSE');
      }
      changedSince = latest;
    }
  }

  /** Every row of `select * from <entity>`, page by page (STARTPOSITION / MAXRESULTS). */
  private async queryAll<K extends 'Account' | 'Vendor' | 'Customer'>(entity: K): Promise<QueryRows[K]> {
    const rows: unknown[] = [];
    for (let start = 1; ; start += PAGE_SIZE) {
      const query = `select * from ${entity} STARTPOSITION ${start} MAXRESULTS ${PAGE_SIZE}`;
      const page: unknown[] =
        (await this.call({ method: 'GET', url: this.url('/query', { query }) }, QbQueryAnswer)).QueryResponse[entity] ?? [];
      rows.push(...page);
      if (page.length < PAGE_SIZE) return rows as QueryRows[K];
    }
  }

  async listAccounts(): Promise<ExternalAccount[]> {
    return (await this.queryAll('Account')).filter((a) => a.Active !== false).flatMap((a) => accountOf(a) ?? []);
  }

  async listParties(): Promise<ExternalParty[]> {
    const vendors = (await this.queryAll('Vendor')).filter((v) => v.Active !== false).map((v) => partyOf(v, 'Vendor'));
    const customers = (await this.queryAll('Customer')).filter((c) => c.Active !== false).map((c) => partyOf(c, 'Customer'));
    return [...vendors, ...customers];
  }
}
