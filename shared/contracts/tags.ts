import { z } from 'zod/v4';
import { IntId, Timestamp } from './common.js';

export const TagObject = z.object({
  id: z.number().int(),
  workspaceId: z.number().int(),
  name: z.string(),
  color: z.string().nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
const Color = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'a #rrggbb colour');
export const CreateTagInput = z.object({ workspaceId: IntId, name: z.string().trim().min(1).max(100), color: Color.optional() }).strict();
export const UpdateTagInput = z
  .object({ id: IntId, name: z.string().trim().min(1).max(100).optional(), color: Color.nullable().optional() })
  .strict();

export const EntrySourceObject = z.object({
  id: z.number().int(),
  workspaceId: z.number().int(),
  kind: z.enum(['MANUAL', 'INTEGRATION']),
  name: z.string(),
  integrationId: z.string().nullable(),
  createdAt: Timestamp,
});

export type TagObject = z.infer<typeof TagObject>;
export type EntrySourceObject = z.infer<typeof EntrySourceObject>;
export type CreateTagInput = z.infer<typeof CreateTagInput>;
export type UpdateTagInput = z.infer<typeof UpdateTagInput>;
