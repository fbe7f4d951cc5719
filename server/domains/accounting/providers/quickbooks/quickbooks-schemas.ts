import { z } from 'zod/v4';

/**
 * The subset of the QuickBooks Online Accounting API v3 the adapter reads, validated before
 * use (objects stay loose: QuickBooks sends many more fields than these).
 */
const Ref = z.object({ value: z.string().min(1), name: z.string().optional() }).loose();
const MetaData = z.object({ CreateTime: z.string().optional(), LastUpdatedTime: z.string().min(1) }).loose();
const Money = z.number().finite().nonnegative();

export const QbPurchase = z
  .object({
    Id: z.string().min(1).max(255),
    SyncToken: z.string().min(1).max(255),
    TxnDate: z.iso.date(),
    TotalAmt: Money,
    PrivateNote: z.string().optional(),
    DocNumber: z.string().optional(),
    CurrencyRef: Ref.optional(),
    MetaData,
  })
  .loose();

export const QbDepositLine = z
  .object({
    Amount: Money,
    DetailType: z.string(),
    DepositLineDetail: z.object({ AccountRef: Ref.optional(), Entity: Ref.optional(), CheckNum: z.string().optional() }).loose().optional(),
  })
  .loose();

export const QbDeposit = z
  .object({
    Id: z.string().min(1).max(255),
    SyncToken: z.string().min(1).max(255),
    TxnDate: z.iso.date(),
    TotalAmt: Money,
    PrivateNote: z.string().optional(),
    CurrencyRef: Ref.optional(),
    Line: z.array(QbDepositLine).optional(),
    MetaData,
  })
  .loose();

/** A transaction deleted in QuickBooks, as change data capture and delete operations report it. */
export const QbDeleted = z.object({ Id: z.string().min(1).max(255), status: z.literal('Deleted'), MetaData: MetaData.optional() }).loose();

export const QbPurchaseAnswer = z.object({ Purchase: z.union([QbDeleted, QbPurchase]) }).loose();
export const QbDepositAnswer = z.object({ Deposit: z.union([QbDeleted, QbDeposit]) }).loose();

export const QbCdcAnswer = z
  .object({
    CDCResponse: z
      .array(
        z
          .object({
            QueryResponse: z
              .array(
                z
                  .object({
                    Purchase: z.array(z.union([QbDeleted, QbPurchase])).optional(),
                    Deposit: z.array(z.union([QbDeleted, QbDeposit])).optional(),
                  })
                  .loose(),
              )
              .optional(),
          })
          .loose(),
      )
      .min(1),
  })
  .loose();

export const QbAccount = z
  .object({
    Id: z.string().min(1).max(255),
    Name: z.string().min(1).max(200),
    AcctNum: z.string().max(50).optional(),
    AccountType: z.string().min(1),
    Classification: z.string().optional(),
    Active: z.boolean().optional(),
  })
  .loose();

export const QbNamedParty = z
  .object({
    Id: z.string().min(1).max(255),
    DisplayName: z.string().min(1).max(200),
    Active: z.boolean().optional(),
    BillAddr: z.object({ Country: z.string().optional() }).loose().optional(),
  })
  .loose();

export const QbQueryAnswer = z
  .object({
    QueryResponse: z
      .object({
        Account: z.array(QbAccount).optional(),
        Vendor: z.array(QbNamedParty).optional(),
        Customer: z.array(QbNamedParty).optional(),
        startPosition: z.number().optional(),
        maxResults: z.number().optional(),
      })
      .loose(),
  })
  .loose();

/** QuickBooks errors come as `Fault` (API) or `fault` (the authentication layer, lower-case keys). */
const FaultError = z
  .object({
    Message: z.string().optional(),
    message: z.string().optional(),
    Detail: z.string().optional(),
    detail: z.string().optional(),
    code: z.string().optional(),
  })
  .loose();
const Fault = z
  .object({ Error: z.array(FaultError).optional(), error: z.array(FaultError).optional(), type: z.string().optional() })
  .loose();
export const QbFaultAnswer = z.object({ Fault: Fault.optional(), fault: Fault.optional() }).loose();

export const QbTokenAnswer = z.object({
  token_type: z.string().optional(),
  access_token: z.string().min(1),
  refresh_token: z.string().min(1),
  expires_in: z.number().int().positive(),
  x_refresh_token_expires_in: z.number().int().positive().optional(),
});

export type QbPurchase = z.infer<typeof QbPurchase>;
export type QbDeposit = z.infer<typeof QbDeposit>;
export type QbDeleted = z.infer<typeof QbDeleted>;
export type QbAccount = z.infer<typeof QbAccount>;
export type QbNamedParty = z.infer<typeof QbNamedParty>;
