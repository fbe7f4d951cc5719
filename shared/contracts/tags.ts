import { z } from 'zod/v4';
import { IntId, IntIdValue, NAME_MAX, NonBlankText, QueryBool, Text, Timestamp, UuidValue } from './common.js';

export const TAG_NAME_MAX = 100;
const Color = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'a #rrggbb colour')
  .meta({ maxLength: 7 });

export const TagObject = z.object({
  id: IntIdValue,
  workspaceId: IntIdValue,
  name: Text(TAG_NAME_MAX),
  color: Color.nullable(),
  archivedAt: Timestamp.nullable().describe('When the tag was deleted (archived); null for a usable tag'),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const ListTagsQuery = z.object({
  workspaceId: IntId,
  includeArchived: QueryBool.optional().describe('true lists deleted (archived) tags too'),
});
export const CreateTagInput = z
  .object({
    workspaceId: IntId,
    name: NonBlankText(TAG_NAME_MAX),
    color: Color.optional(),
  })
  .strict();
export const UpdateTagInput = z
  .object({
    id: IntId,
    name: NonBlankText(TAG_NAME_MAX).optional(),
    color: Color.nullable().optional(),
  })
  .strict();

export const EntrySourceObject = z.object({
  id: IntIdValue,
  workspaceId: IntIdValue,
  kind: z.enum(['MANUAL', 'INTEGRATION', 'BANK']),
  name: Text(NAME_MAX).describe("'Manual', the integration's name, or the bank account's name"),
  integrationId: UuidValue.nullable(),
  createdAt: Timestamp,
});

export type TagObject = z.infer<typeof TagObject>;
export type EntrySourceObject = z.infer<typeof EntrySourceObject>;
export type CreateTagInput = z.infer<typeof CreateTagInput>;
export type UpdateTagInput = z.infer<typeof UpdateTagInput>;
