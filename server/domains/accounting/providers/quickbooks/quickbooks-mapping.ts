import { currencyExponent, formatMinorUnits } from '../../../../lib/money.js';
import type { ExternalAccount, ExternalEntry, ExternalParty, OutboundEntry } from '../provider.js';
import { ProviderError } from '../provider-error.js';
import type { QbAccount, QbDeleted, QbDeposit, QbNamedParty, QbPurchase } from './quickbooks-schemas.js';

/**
 * Local entry ⇄ QuickBooks objects: EXPENSE ⇄ Purchase, INCOME ⇄ Deposit (CONTRACT §9).
 * Accounts come from the connection's config: `paymentAccountId` (the account a Purchase is
 * paid from), `depositAccountId` (the account a Deposit goes to), and the line's account is the
 * approved review's category (its externalId) or else `expenseAccountId` / `incomeAccountId`.
 */

export const DOC_NUMBER_MAX = 21;
export const DELETED_VERSION = 'deleted';

export type QbEntity = 'Purchase' | 'Deposit';
export const entityOf = (entryType: OutboundEntry['entryType']): QbEntity => (entryType === 'EXPENSE' ? 'Purchase' : 'Deposit');

function configAccount(config: Record<string, unknown>, key: string): string {
  const value = config[key];
  if (typeof value === 'string' && value.trim()) return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw new ProviderError(`QUICKBOOKS connection config.${key} is not set (the QuickBooks account id to use)`, 'CONFIGURATION');
}

const amountOf = (e: OutboundEntry) => Number(formatMinorUnits(e.amountCents, e.currency));

/** The body of a Purchase (EXPENSE) create or full update. */
function purchaseBody(e: OutboundEntry, config: Record<string, unknown>): Record<string, unknown> {
  const vendor = e.toParty?.externalId;
  return {
    PaymentType: 'Cash',
    AccountRef: { value: configAccount(config, 'paymentAccountId') },
    TxnDate: e.entryDate,
    CurrencyRef: { value: e.currency },
    ...(e.description !== null ? { PrivateNote: e.description } : {}),
    ...(e.reference !== null ? { DocNumber: e.reference.slice(0, DOC_NUMBER_MAX) } : {}),
    ...(vendor ? { EntityRef: { value: vendor, type: 'Vendor' } } : {}),
    Line: [
      {
        Amount: amountOf(e),
        DetailType: 'AccountBasedExpenseLineDetail',
        ...(e.description !== null ? { Description: e.description } : {}),
        AccountBasedExpenseLineDetail: { AccountRef: { value: e.categoryExternalId ?? configAccount(config, 'expenseAccountId') } },
      },
    ],
  };
}

/** The body of a Deposit (INCOME) create or full update; the reference travels as the line's CheckNum. */
function depositBody(e: OutboundEntry, config: Record<string, unknown>): Record<string, unknown> {
  const customer = e.fromParty?.externalId;
  return {
    DepositToAccountRef: { value: configAccount(config, 'depositAccountId') },
    TxnDate: e.entryDate,
    CurrencyRef: { value: e.currency },
    ...(e.description !== null ? { PrivateNote: e.description } : {}),
    Line: [
      {
        Amount: amountOf(e),
        DetailType: 'DepositLineDetail',
        ...(e.description !== null ? { Description: e.description } : {}),
        DepositLineDetail: {
          AccountRef: { value: e.categoryExternalId ?? configAccount(config, 'incomeAccountId') },
          ...(customer ? { Entity: { value: customer, type: 'Customer' } } : {}),
          ...(e.reference !== null ? { CheckNum: e.reference.slice(0, DOC_NUMBER_MAX) } : {}),
        },
      },
    ],
  };
}

export const transactionBody = (e: OutboundEntry, config: Record<string, unknown>) =>
  e.entryType === 'EXPENSE' ? purchaseBody(e, config) : depositBody(e, config);

/** Minor units of a QuickBooks amount; undefined (not applied locally) when it is not a positive safe integer amount. */
function centsOf(amount: number, currency: string): number | undefined {
  const cents = Math.round(amount * 10 ** currencyExponent(currency));
  return Number.isSafeInteger(cents) && cents > 0 ? cents : undefined;
}

export const isDeleted = (o: QbPurchase | QbDeposit | QbDeleted): o is QbDeleted => (o as QbDeleted).status === 'Deleted';

export function deletedEntry(o: QbDeleted): ExternalEntry {
  return { externalId: o.Id, version: DELETED_VERSION, voided: true, updatedAt: o.MetaData?.LastUpdatedTime ?? new Date(0).toISOString() };
}

export function purchaseEntry(p: QbPurchase, fallbackCurrency: string): ExternalEntry {
  return {
    externalId: p.Id,
    version: p.SyncToken,
    voided: false,
    updatedAt: p.MetaData.LastUpdatedTime,
    amountCents: centsOf(p.TotalAmt, p.CurrencyRef?.value ?? fallbackCurrency),
    entryDate: p.TxnDate,
    description: p.PrivateNote ?? null,
    reference: p.DocNumber ?? null,
  };
}

export function depositEntry(d: QbDeposit, fallbackCurrency: string): ExternalEntry {
  return {
    externalId: d.Id,
    version: d.SyncToken,
    voided: false,
    updatedAt: d.MetaData.LastUpdatedTime,
    amountCents: centsOf(d.TotalAmt, d.CurrencyRef?.value ?? fallbackCurrency),
    entryDate: d.TxnDate,
    description: d.PrivateNote ?? null,
    reference: d.Line?.[0]?.DepositLineDetail?.CheckNum ?? null,
  };
}

const CLASSIFICATIONS: Record<string, ExternalAccount['accountType']> = {
  Asset: 'ASSET',
  Liability: 'LIABILITY',
  Equity: 'EQUITY',
  Revenue: 'REVENUE',
  Expense: 'EXPENSE',
};
const ACCOUNT_TYPES: Record<string, ExternalAccount['accountType']> = {
  Bank: 'ASSET',
  'Accounts Receivable': 'ASSET',
  'Other Current Asset': 'ASSET',
  'Fixed Asset': 'ASSET',
  'Other Asset': 'ASSET',
  'Accounts Payable': 'LIABILITY',
  'Credit Card': 'LIABILITY',
  'Other Current Liability': 'LIABILITY',
  'Long Term Liability': 'LIABILITY',
  Equity: 'EQUITY',
  Income: 'REVENUE',
  'Other Income': 'REVENUE',
  Expense: 'EXPENSE',
  'Other Expense': 'EXPENSE',
  'Cost of Goods Sold': 'EXPENSE',
};

/** An Account as a chart-of-accounts item: `code` is its AcctNum, or `QB-<Id>` when it has none. */
export function accountOf(a: QbAccount): ExternalAccount | null {
  const accountType = CLASSIFICATIONS[a.Classification ?? ''] ?? ACCOUNT_TYPES[a.AccountType];
  if (!accountType) return null;
  return { externalId: a.Id, code: a.AcctNum?.trim() || `QB-${a.Id}`.slice(0, 50), name: a.Name, accountType };
}

export function partyOf(p: QbNamedParty, externalType: 'Vendor' | 'Customer'): ExternalParty {
  const country = p.BillAddr?.Country?.trim().toUpperCase();
  return { externalId: p.Id, name: p.DisplayName, externalType, country: country && /^[A-Z]{2}$/.test(country) ? country : null };
}
