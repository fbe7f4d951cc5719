import { z } from 'zod/v4';
import { Country, EmailInput, EmailValue, IntId, IntIdValue, NAME_MAX, NonBlankText, Text, Timestamp } from './common.js';

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

const Name = NonBlankText(NAME_MAX);
export const CreatePartyInput = z
  .object({
    workspaceId: IntId,
    name: Name,
    partyType: PartyType,
    country: Country.optional(),
    email: EmailInput.optional(),
    taxId: NonBlankText(TAX_ID_MAX).optional(),
  })
  .strict();
export const UpdatePartyInput = z
  .object({
    id: IntId,
    name: Name.optional(),
    partyType: PartyType.optional(),
    country: Country.nullable().optional(),
    email: EmailInput.nullable().optional(),
    taxId: NonBlankText(TAX_ID_MAX).nullable().optional(),
  })
  .strict();

export type PartyObject = z.infer<typeof PartyObject>;
export type CreatePartyInput = z.infer<typeof CreatePartyInput>;
export type UpdatePartyInput = z.infer<typeof UpdatePartyInput>;
