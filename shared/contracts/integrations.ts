import { z } from 'zod/v4';
import {
  BigIntIdValue,
  Country,
  Currency,
  EXTERNAL_ID_MAX,
  IntId,
  IntIdValue,
  IsoDate,
  NAME_MAX,
  NonBlankText,
  SmallCount,
  Text,
  Timestamp,
  Uuid,
  UuidValue,
} from './common.js';
import { AmountCents, EntryType } from './entries.js';
import { PartyType } from './parties.js';

export const MAX_INTEGRATION_PROJECTS = 1000;

export const IntegrationObject = z.object({
  id: Uuid,
  workspaceId: IntIdValue,
  name: Text(NAME_MAX),
  projectIds: z
    .array(IntIdValue)
    .max(MAX_INTEGRATION_PROJECTS)
    .describe('Projects the integration may write to; empty = every project of the workspace'),
  keyPrefix: z
    .string()
    .max(40)
    .meta({ pattern: '^[A-Za-z0-9_]+$' })
    .describe('The visible start of the current API key, e.g. fes_live_Ab3dE5fG'),
  entrySourceId: IntIdValue,
  isActive: z.boolean(),
  revokedAt: Timestamp.nullable(),
  createdBy: UuidValue.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** `fes_live_<8 visible>_<40 secret>` (server/domains/integrations/api-keys.ts). */
const API_KEY_LENGTH = 58;

export const IntegrationWithKey = IntegrationObject.extend({
  apiKey: z
    .string()
    .max(API_KEY_LENGTH)
    .meta({ pattern: '^fes_live_[A-Za-z0-9]{8}_[A-Za-z0-9]{40}$' })
    .describe('The API key; shown only in this response, only its hash is stored'),
});

export const CreateIntegrationInput = z
  .object({
    workspaceId: IntId,
    name: NonBlankText(NAME_MAX),
    projectIds: z.array(IntId).max(MAX_INTEGRATION_PROJECTS).optional(),
  })
  .strict();
export const IntegrationIdInput = z.object({ id: Uuid });

export const MAX_INGEST_ENTRIES = 1000;
/** Default ingest body limit (CONTRACT §12: 10 MiB, configurable; 413 beyond it). */
export const INGEST_BODY_LIMIT_BYTES = 10 * 1024 * 1024;

// an ingest item is judged on its own, so whatever PostgreSQL would refuse is refused here, per item
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const storable = (s: string) => !s.includes('\u0000') && !LONE_SURROGATE.test(s);
const IngestText = (min: number, max: number, trim = false) =>
  (trim ? z.string().trim() : z.string()).min(min).max(max).refine(storable, 'must be well-formed Unicode text without NUL characters');
const IngestDate = IsoDate.refine((d) => d >= '0001-01-01', 'must be 0001-01-01 or later');

/** A party an ingested entry names: one of the workspace's by id, or by name (created when new). */
export const PartyById = z.object({ id: IntId }).strict();
export const PartyByName = z
  .object({
    name: IngestText(1, NAME_MAX, true),
    partyType: PartyType.optional(),
    country: Country.optional(),
  })
  .strict();
const PartyRef = z.union([PartyById, PartyByName]);

/** One ingested entry; each is validated on its own (a failing item is an ERROR result). */
export const IngestItem = z
  .object({
    externalId: IngestText(1, EXTERNAL_ID_MAX),
    projectId: IntId,
    entryType: EntryType,
    amountCents: AmountCents,
    baseCurrency: Currency,
    entryDate: IngestDate,
    description: IngestText(0, 2000).optional(),
    reference: IngestText(0, 255).optional(),
    fromParty: PartyRef.optional(),
    toParty: PartyRef.optional(),
    tagNames: z
      .array(IngestText(1, 100, true))
      .max(100)
      .optional(),
  })
  .strict();

/** An item that is not an IngestItem: named, so a generated client calls it by name rather than by its place in the union. */
export const UncheckedIngestItem = z
  .unknown()
  .describe('Anything else: not a 400, but an ERROR result of its own ("invalid item"), and the other items go on');
/** A body of 1 … MAX_INGEST_ENTRIES items of `item`, nothing else. */
const entriesOf = <T extends z.ZodType>(item: T) => z.object({ entries: z.array(item).min(1).max(MAX_INGEST_ENTRIES) }).strict();
/** The envelope: items are checked one by one afterwards, so a bad item does not fail the batch. */
export const IngestEnvelope = entriesOf(z.unknown());
/**
 * The documented request body. An item is meant to be an IngestItem, but one that is not is an ERROR result
 * of its own, not a 400 (CONTRACT §11): so the document accepts any item, the IngestItem or anything else.
 */
export const IngestRequest = entriesOf(z.union([IngestItem, UncheckedIngestItem]));

export const IngestStatus = z.enum(['CREATED', 'DUPLICATE', 'ERROR']);
export const IngestItemResult = z.object({
  externalId: z
    .string()
    .meta({ maxLength: INGEST_BODY_LIMIT_BYTES })
    .nullable()
    .describe('The item externalId as sent (null when the item had none); echoed even when too long, so only the body limit bounds it'),
  status: IngestStatus,
  entryId: BigIntIdValue.optional().describe('The created entry (CREATED) or the one already ingested (DUPLICATE)'),
  error: z
    .string()
    .meta({ maxLength: INGEST_BODY_LIMIT_BYTES })
    .optional()
    .describe('Why the item was refused (ERROR): its validation issues, bounded by the size of the item'),
});
export const IngestResponse = z.object({
  created: SmallCount.max(MAX_INGEST_ENTRIES),
  duplicates: SmallCount.max(MAX_INGEST_ENTRIES),
  failed: SmallCount.max(MAX_INGEST_ENTRIES),
  results: z.array(IngestItemResult).max(MAX_INGEST_ENTRIES).describe('One per item, in request order'),
});

export type IntegrationObject = z.infer<typeof IntegrationObject>;
export type IntegrationWithKey = z.infer<typeof IntegrationWithKey>;
export type CreateIntegrationInput = z.infer<typeof CreateIntegrationInput>;
export type IngestItem = z.infer<typeof IngestItem>;
export type PartyRef = z.infer<typeof PartyRef>;
export type IngestItemResult = z.infer<typeof IngestItemResult>;
export type IngestResponse = z.infer<typeof IngestResponse>;
