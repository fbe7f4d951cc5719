import type { AccountingProvider, ExternalRef, OutboundEntry, PushedRecord, RequestPreview } from './provider.js';

/**
 * MANUAL: no external system (CONTRACT §9). A push records SYNCED with externalId
 * `manual-<entryId>` (the version counts the pushes); pulls and imports find nothing.
 */
export class ManualProvider implements AccountingProvider {
  async assertTarget(): Promise<void> {}
  async prepare(): Promise<void> {}

  previewCreate(entry: OutboundEntry): RequestPreview {
    return { method: null, url: null, body: entry };
  }

  previewUpdate(_ref: ExternalRef, entry: OutboundEntry): RequestPreview {
    return { method: null, url: null, body: entry };
  }

  async pushCreate(entry: OutboundEntry): Promise<PushedRecord> {
    return { externalId: `manual-${entry.localId}`, version: '1' };
  }

  async pushUpdate(ref: ExternalRef): Promise<PushedRecord> {
    const previous = Number(ref.version);
    return { externalId: ref.externalId, version: String(Number.isSafeInteger(previous) ? previous + 1 : 1) };
  }

  async fetchOne() {
    return null;
  }

  async listChangedSince() {
    return [];
  }

  async listAccounts() {
    return [];
  }

  async listParties() {
    return [];
  }
}
