import { z } from 'zod/v4';

/** The generic HTTP provider's answers (CONTRACT §9), validated before anything is stored. */
const ExternalId = z.string().min(1).max(255);
/** "an opaque string that changes on every external change" (numbers are accepted and kept as text) */
const Version = z.union([z.string().min(1).max(255), z.number()]).transform(String);

export const GenericPushAnswer = z.object({ externalId: ExternalId, version: Version });

export const GenericExternalEntry = z.object({
  externalId: ExternalId,
  version: Version,
  amountCents: z.number().int().positive().max(1_000_000_000_000_000),
  entryDate: z.iso.date(),
  description: z.string().max(2000).nullable(),
  reference: z.string().max(255).nullable(),
  voided: z.boolean(),
  updatedAt: z.string().min(1).max(64),
});

export const GenericEntriesAnswer = z.object({ entries: z.array(GenericExternalEntry) });

export const GenericAccountsAnswer = z.object({
  accounts: z.array(
    z.object({
      externalId: ExternalId,
      code: z.string().min(1).max(50),
      name: z.string().min(1).max(200),
      accountType: z.enum(['ASSET', 'LIABILITY', 'EQUITY', 'REVENUE', 'EXPENSE']),
    }),
  ),
});

export const GenericPartiesAnswer = z.object({
  parties: z.array(
    z.object({
      externalId: ExternalId,
      name: z.string().min(1).max(200),
      externalType: z.string().min(1).max(100),
      country: z
        .string()
        .regex(/^[A-Z]{2}$/)
        .nullish(),
    }),
  ),
});
