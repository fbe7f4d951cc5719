import { z } from 'zod/v4';
import { Country, IntId, Timestamp } from './common.js';

export const PartyType = z.enum(['PERSON', 'ORGANIZATION']);

export const PartyObject = z.object({
  id: z.number().int(),
  workspaceId: z.number().int(),
  name: z.string(),
  partyType: PartyType,
  country: z.string().nullable(),
  email: z.string().nullable(),
  taxId: z.string().nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const Name = z.string().trim().min(1).max(200);
export const CreatePartyInput = z
  .object({
    workspaceId: IntId,
    name: Name,
    partyType: PartyType,
    country: Country.optional(),
    email: z.email().max(320).optional(),
    taxId: z.string().trim().min(1).max(64).optional(),
  })
  .strict();
export const UpdatePartyInput = z
  .object({
    id: IntId,
    name: Name.optional(),
    partyType: PartyType.optional(),
    country: Country.nullable().optional(),
    email: z.email().max(320).nullable().optional(),
    taxId: z.string().trim().min(1).max(64).nullable().optional(),
  })
  .strict();

export type PartyObject = z.infer<typeof PartyObject>;
export type CreatePartyInput = z.infer<typeof CreatePartyInput>;
export type UpdatePartyInput = z.infer<typeof UpdatePartyInput>;
