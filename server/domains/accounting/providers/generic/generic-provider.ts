import type { z } from 'zod/v4';
import type { ConnectionRow } from '../../connections/connection-rows.js';
import type { ConnectionCredentials } from '../../connections/connection-secrets.js';
import { jsonOf, refuseRedirect, send, type HttpAnswer, type HttpCall } from '../http-client.js';
import type { AccountingProvider, ExternalEntry, ExternalRef, OutboundEntry, PushedRecord, RequestPreview } from '../provider.js';
import { excerpt, ProviderError } from '../provider-error.js';
import { resolveTarget } from '../address-guard.js';
import { parseAnswer } from '../validate-response.js';
import {
  GenericAccountsAnswer,
  GenericEntriesAnswer,
  GenericExternalEntry,
  GenericPartiesAnswer,
  GenericPushAnswer,
} from './generic-schemas.js';

/**
 * The generic HTTP adapter for custom provider types (CONTRACT §9): JSON over `config.baseUrl`,
 * `Authorization: Bearer <credentials.accessToken>` when that credential is set, every host
 * checked by the SSRF guard.
 */
export class GenericHttpProvider implements AccountingProvider {
  private readonly baseUrl: string;
  private readonly label: string;

  constructor(
    connection: ConnectionRow,
    private readonly credentials: ConnectionCredentials,
  ) {
    const baseUrl = connection.config.baseUrl;
    if (typeof baseUrl !== 'string' || !baseUrl) {
      throw new ProviderError(`A ${connection.provider_type} connection needs config.baseUrl`, 'CONFIGURATION');
    }
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.label = `${connection.provider_type} provider`;
  }

  async assertTarget(): Promise<void> {
    await resolveTarget(new URL(this.baseUrl).hostname, { guard: true });
  }

  async prepare(): Promise<void> {}

  private url(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const token = this.credentials.accessToken;
    return { ...(typeof token === 'string' && token ? { Authorization: `Bearer ${token}` } : {}), ...extra };
  }

  private async call<T extends z.ZodType>(call: HttpCall, schema: T, okStatuses: number[]): Promise<z.infer<T>> {
    const answer = await send({ ...call, headers: this.headers(call.headers) }, { guard: true, label: this.label });
    this.assertOk(answer, okStatuses);
    return parseAnswer(schema, jsonOf(answer, this.label), this.label, answer.status);
  }

  private assertOk(answer: HttpAnswer, okStatuses: number[]): void {
    refuseRedirect(answer, this.label);
    if (okStatuses.includes(answer.status)) return;
    const detail = answer.text ? `: ${excerpt(answer.text)}` : '';
    const retryAfter = answer.status === 429 && answer.headers['retry-after'] ? ` (Retry-After ${answer.headers['retry-after']})` : '';
    throw new ProviderError(`${this.label} answered ${answer.status}${retryAfter}${detail}`, 'HTTP', answer.status);
  }

  previewCreate(entry: OutboundEntry): RequestPreview {
    return { method: 'POST', url: this.url('/entries'), body: entry };
  }

  previewUpdate(ref: ExternalRef, entry: OutboundEntry): RequestPreview {
    return { method: 'PUT', url: this.url(`/entries/${encodeURIComponent(ref.externalId)}`), body: entry };
  }

  async pushCreate(entry: OutboundEntry, idempotencyKey: string): Promise<PushedRecord> {
    const preview = this.previewCreate(entry);
    return this.call(
      { method: 'POST', url: preview.url!, json: preview.body, headers: { 'Idempotency-Key': idempotencyKey } },
      GenericPushAnswer,
      [200, 201],
    );
  }

  async pushUpdate(ref: ExternalRef, entry: OutboundEntry): Promise<PushedRecord> {
    const preview = this.previewUpdate(ref, entry);
    return this.call({ method: 'PUT', url: preview.url!, json: preview.body }, GenericPushAnswer, [200]);
  }

  async fetchOne(ref: ExternalRef): Promise<ExternalEntry | null> {
    const url = this.url(`/entries/${encodeURIComponent(ref.externalId)}`);
    const answer = await send({ method: 'GET', url, headers: this.headers() }, { guard: true, label: this.label });
    if (answer.status === 404) return null;
    this.assertOk(answer, [200]);
    return parseAnswer(GenericExternalEntry, jsonOf(answer, this.label), this.label, answer.status);
  }

  async listChangedSince(since: Date | null): Promise<ExternalEntry[]> {
    const query = since ? `?since=${encodeURIComponent(since.toISOString())}` : '';
    return (await this.call({ method: 'GET', url: this.url(`/entries${query}`) }, GenericEntriesAnswer, [200])).entries;
  }

  async listAccounts() {
    return (await this.call({ method: 'GET', url: this.url('/accounts') }, GenericAccountsAnswer, [200])).accounts;
  }

  async listParties() {
    return (await this.call({ method: 'GET', url: this.url('/parties') }, GenericPartiesAnswer, [200])).parties;
  }
}
