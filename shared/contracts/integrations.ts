import { z } from 'zod/v4';
import { Country, Currency, IntId, IsoDate, Timestamp, Uuid } from './common.js';
import { AmountCents, EntryType } from './entries.js';
import { PartyType } from './parties.js';

export const IntegrationObject = z.object({
  id: Uuid,
  workspaceId: z.number().int(),
  name: z.string(),
  projectIds: z.array(z.number().int()).describe('Projects the integration may write to; empty = every project of the workspace'),
  keyPrefix: z.string().describe('The visible start of the current API key, e.g. fes_live_Ab3dE5fG'),
  entrySourceId: z.number().int(),
  isActive: z.boolean(),
  revokedAt: Timestamp.nullable(),
  createdBy: z.string().nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const IntegrationWithKey = IntegrationObject.extend({
  apiKey: z.string().describe('The API key; shown only in this response, only its hash is stored'),
});

export const CreateIntegrationInput = z
  .object({
    workspaceId: IntId,
    name: z.string().trim().min(1).max(200),
    projectIds: z.array(IntId).max(1000).optional(),
  })
  .strict();
export const IntegrationIdInput = z.object({ id: Uuid });

export const MAX_INGEST_ENTRIES = 1000;

// an ingest item is judged on its own, so whatever PostgreSQL would refuse is refused here, per item
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const storable = (s: string) => !s.includes('\u0000') && !LONE_SURROGATE.test(s);
const Text = (min: number, max: number, trim = false) =>
  (trim ? z.string().trim() : z.string()).min(min).max(max).refine(storable, 'must be well-formed Unicode text without NUL characters');
const IngestDate = IsoDate.refine((d) => d >= '0001-01-01', 'must be 0001-01-01 or later');

const PartyRef = z.union([
  z.object({ id: IntId }).strict(),
  z
    .object({
      name: Text(1, 200, true),
      partyType: PartyType.optional(),
      country: Country.optional(),
    })
    .strict(),
]);

/** One ingested entry; each is validated on its own (a failing item is an ERROR result). */
export const IngestItem = z
  .object({
    externalId: Text(1, 255),
    projectId: IntId,
    entryType: EntryType,
    amountCents: AmountCents,
    baseCurrency: Currency,
    entryDate: IngestDate,
    description: Text(0, 2000).optional(),
    reference: Text(0, 255).optional(),
    fromParty: PartyRef.optional(),
    toParty: PartyRef.optional(),
    tagNames: z
      .array(Text(1, 100, true))
      .max(100)
      .optional(),
  })
  .strict();

/** The envelope: items are checked one by one afterwards, so a bad item does not fail the batch. */
export const IngestEnvelope = z.object({ entries: z.array(z.unknown()).min(1).max(MAX_INGEST_ENTRIES) }).strict();
/** The documented request body. */
export const IngestRequest = z.object({ entries: z.array(IngestItem).min(1).max(MAX_INGEST_ENTRIES) }).strict();

export const IngestStatus = z.enum(['CREATED', 'DUPLICATE', 'ERROR']);
export const IngestItemResult = z.object({
  externalId: z.string().nullable().describe('The item externalId as sent (null when the item had none)'),
  status: IngestStatus,
  entryId: z.number().int().optional().describe('The created entry (CREATED) or the one already ingested (DUPLICATE)'),
  error: z.string().optional().describe('Why the item was refused (ERROR)'),
});
export const IngestResponse = z.object({
  created: z.number().int(),
  duplicates: z.number().int(),
  failed: z.number().int(),
  results: z.array(IngestItemResult).describe('One per item, in request order'),
});

export type IntegrationObject = z.infer<typeof IntegrationObject>;
export type IntegrationWithKey = z.infer<typeof IntegrationWithKey>;
export type CreateIntegrationInput = z.infer<typeof CreateIntegrationInput>;
export type IngestItem = z.infer<typeof IngestItem>;
export type PartyRef = z.infer<typeof PartyRef>;
export type IngestItemResult = z.infer<typeof IngestItemResult>;
export type IngestResponse = z.infer<typeof IngestResponse>;
