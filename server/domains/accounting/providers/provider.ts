import type { EntryType } from '../../../../shared/contracts/entries.js';

/** A local entry as every provider receives it (the generic adapter sends exactly this, CONTRACT §9). */
export type OutboundEntry = {
  localId: number;
  entryType: EntryType;
  amountCents: number;
  currency: string;
  entryDate: string;
  description: string | null;
  reference: string | null;
  voided: boolean;
  fromParty: OutboundParty | null;
  toParty: OutboundParty | null;
  categoryExternalId: string | null;
};
export type OutboundParty = { externalId?: string; name: string };

/**
 * An entry as the external system holds it. Fields a provider does not report for a record
 * (e.g. a deleted QuickBooks transaction has no amount) are left out and never applied locally.
 */
export type ExternalEntry = {
  externalId: string;
  /** opaque; changes on every external change */
  version: string;
  voided: boolean;
  updatedAt: string;
  amountCents?: number;
  entryDate?: string;
  description?: string | null;
  reference?: string | null;
};

export type ExternalAccount = {
  externalId: string;
  code: string;
  name: string;
  accountType: 'ASSET' | 'LIABILITY' | 'EQUITY' | 'REVENUE' | 'EXPENSE';
};
export type ExternalParty = { externalId: string; name: string; externalType: string; country?: string | null };

/** Where a pushed entry lives externally, and the version our update is based on. */
export type ExternalRef = { externalId: string; version: string | null };
export type PushedRecord = { externalId: string; version: string };

/** The request a push would send (dryRun): method and URL null for MANUAL (no external system). */
export type RequestPreview = { method: string | null; url: string | null; body: unknown };

/**
 * One interface for every provider type (CONTRACT §9): MANUAL, QUICKBOOKS, and the generic
 * HTTP adapter for custom types. Failures are thrown as ProviderError.
 */
export interface AccountingProvider {
  /** Refuses a target the service may not call (SSRF guard): throws a 400 AppError. */
  assertTarget(): Promise<void>;
  /** Work worth doing before a push takes its lock (e.g. refreshing an access token that is about to expire). */
  prepare(): Promise<void>;
  previewCreate(entry: OutboundEntry, idempotencyKey: string): RequestPreview;
  previewUpdate(ref: ExternalRef, entry: OutboundEntry): RequestPreview;
  /** `idempotencyKey` is the same for every create of one (connection, entry), so a retried create cannot duplicate. */
  pushCreate(entry: OutboundEntry, idempotencyKey: string): Promise<PushedRecord>;
  pushUpdate(ref: ExternalRef, entry: OutboundEntry): Promise<PushedRecord>;
  /** null when the external system does not know the record. */
  fetchOne(ref: ExternalRef & { entryType: EntryType }): Promise<ExternalEntry | null>;
  listChangedSince(since: Date | null): Promise<ExternalEntry[]>;
  listAccounts(): Promise<ExternalAccount[]>;
  listParties(): Promise<ExternalParty[]>;
  /** The longest reference the provider keeps (longer ones are cut); undefined: kept whole. */
  readonly referenceMaxLength?: number;
}
