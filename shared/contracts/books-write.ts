import { z } from 'zod/v4';
import { CategoryObject } from './accounting.js';
import { CountValue, IntId, IntIdValue, IsoDate, Uuid } from './common.js';

/** The books' write side (CONTRACT §23): roles, manual journals and their reversal, verify. */

export const LEDGER_ROLES = ['BANK', 'RECEIVABLE', 'PAYABLE', 'REVENUE', 'EXPENSE', 'OPENING_BALANCE', 'RETAINED_EARNINGS'] as const;
export const LedgerRole = z.enum(LEDGER_ROLES);
export type LedgerRole = z.infer<typeof LedgerRole>;

/** The account type each role's account must have. */
export const ROLE_TYPES: Record<LedgerRole, 'ASSET' | 'LIABILITY' | 'EQUITY' | 'REVENUE' | 'EXPENSE'> = {
  BANK: 'ASSET',
  RECEIVABLE: 'ASSET',
  PAYABLE: 'LIABILITY',
  REVENUE: 'REVENUE',
  EXPENSE: 'EXPENSE',
  OPENING_BALANCE: 'EQUITY',
  RETAINED_EARNINGS: 'EQUITY',
};

export const RolesObject = z.object(
  Object.fromEntries(LEDGER_ROLES.map((r) => [r, CategoryObject])) as Record<LedgerRole, typeof CategoryObject>,
);

export const PutRolesInput = z
  .object({
    workspaceId: IntId,
    roles: z
      .object(
        Object.fromEntries(LEDGER_ROLES.map((r) => [r, Uuid.optional().describe(`the ${ROLE_TYPES[r]} category for ${r}`)])) as Record<
          LedgerRole,
          z.ZodOptional<typeof Uuid>
        >,
      )
      .strict()
      .describe('the roles to set; the others stay'),
  })
  .strict();

const PositiveCents = z.number().int().positive().max(1_000_000_000_000_000);

const LINE_DESCRIPTION = z.string().max(500).optional();

/**
 * A manual journal line as the service reads it: the 400 for a line with both or neither amounts comes after the
 * caller's access (a 403/404 first). The document shows it as what it accepts, one of the two closed variants
 * below (server/trpc/openapi-union-bodies.ts).
 */
export const ManualJournalLine = z
  .object({
    categoryId: Uuid,
    debitCents: PositiveCents.optional(),
    creditCents: PositiveCents.optional(),
    description: LINE_DESCRIPTION,
  })
  .strict()
  .describe('exactly one of debitCents or creditCents (400 otherwise, checked after the caller’s access)');
export const ManualJournalDebitLine = z
  .object({ categoryId: Uuid, debitCents: PositiveCents, description: LINE_DESCRIPTION })
  .strict()
  .describe('a debit line');
export const ManualJournalCreditLine = z
  .object({ categoryId: Uuid, creditCents: PositiveCents, description: LINE_DESCRIPTION })
  .strict()
  .describe('a credit line');

export const ManualJournalInput = z
  .object({
    workspaceId: IntId,
    date: IsoDate,
    description: z.string().min(1).max(500),
    // minItems in the document only: the service counts the lines after the caller's access (a 403/404 first)
    lines: z
      .array(ManualJournalLine)
      .max(200)
      .meta({
        minItems: 2,
        example: [
          { categoryId: '3f2b8c1e-5d4a-4e7b-9c21-8a6f0d3e1b57', debitCents: 125_000, description: 'Accrued consulting' },
          { categoryId: '8a6f0d3e-1b57-4e7b-9c21-3f2b8c1e5d4a', creditCents: 125_000 },
        ],
      })
      .describe('2 to 200 lines (fewer: 400, checked after the caller’s access)'),
  })
  .strict();
export type ManualJournalInput = z.infer<typeof ManualJournalInput>;

export const ReverseJournalInput = z
  .object({
    id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).describe('the MANUAL journal transaction to reverse'),
    date: IsoDate.optional().describe('the reversal’s date (default: the original’s)'),
  })
  .strict();

export const VerifyQuery = z.object({ workspaceId: IntId });

export const PostedLine = z.object({ categoryId: z.string().max(36), debitCents: z.number().int(), creditCents: z.number().int() });
export const PostedTransaction = z.object({
  kind: z.enum(['ENTRY', 'SETTLEMENT']),
  date: IsoDate,
  lines: z.array(PostedLine).max(1000),
});
export const VerifyMismatch = z.object({
  entryId: IntIdValue,
  expected: z.array(PostedTransaction).max(10).describe('what the entry posts now, by the rules of CONTRACT §23'),
  posted: z.array(PostedTransaction).max(10).describe('its live (not reversed) ENTRY and SETTLEMENT transactions'),
});

export const VerifyResult = z.object({
  ok: z.boolean(),
  entriesChecked: CountValue,
  mismatches: z.array(VerifyMismatch).max(1000),
});
