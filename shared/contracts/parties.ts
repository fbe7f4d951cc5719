import { NON_BLANK_PATTERN } from './common.js';
import { z } from 'zod/v4';
import { Country, EmailInput, EmailValue, IntId, IntIdValue, NAME_MAX, Text, Timestamp } from './common.js';

export const PartyType = z.enum(['PERSON', 'ORGANIZATION']);
const TAX_ID_MAX = 64;

export const PartyObject = z.object({
  id: IntIdValue,
  workspaceId: IntIdValue,
  name: Text(NAME_MAX),
  partyType: PartyType,
  country: Country.nullable(),
  email: EmailValue.nullable(),
  taxId: Text(TAX_ID_MAX).nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const Name = z.string().trim().min(1).max(NAME_MAX).meta({ pattern: NON_BLANK_PATTERN });
export const CreatePartyInput = z
  .object({
    workspaceId: IntId,
    name: Name,
    partyType: PartyType,
    country: Country.optional(),
    email: EmailInput.optional(),
    taxId: z.string().trim().min(1).max(TAX_ID_MAX).meta({ pattern: NON_BLANK_PATTERN }).optional(),
  })
  .strict();
export const UpdatePartyInput = z
  .object({
    id: IntId,
    name: Name.optional(),
    partyType: PartyType.optional(),
    country: Country.nullable().optional(),
    email: EmailInput.nullable().optional(),
    taxId: z.string().trim().min(1).max(TAX_ID_MAX).meta({ pattern: NON_BLANK_PATTERN }).nullable().optional(),
  })
  .strict();

export type PartyObject = z.infer<typeof PartyObject>;
export type CreatePartyInput = z.infer<typeof CreatePartyInput>;
export type UpdatePartyInput = z.infer<typeof UpdatePartyInput>;
