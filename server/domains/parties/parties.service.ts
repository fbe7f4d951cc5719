import { transaction } from '../../db/database.js';
import { findByPkLocked } from '../../db/distributed.js';
import { Party } from '../../db/models/index.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { CreatePartyInput, PartyObject, UpdatePartyInput } from '../../../shared/contracts/parties.js';

export const presentParty = (p: Party): PartyObject => ({
  id: p.id,
  workspaceId: p.workspaceId,
  name: p.name,
  partyType: p.partyType,
  country: p.country,
  email: p.email,
  taxId: p.taxId,
  createdAt: p.createdAt.toISOString(),
  updatedAt: p.updatedAt.toISOString(),
});

export async function listParties(actor: Actor, input: { workspaceId: number }): Promise<PartyObject[]> {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  return (await Party.findAll({ where: { workspaceId: input.workspaceId }, order: [['id', 'ASC']] })).map(presentParty);
}

export async function createParty(actor: Actor, input: CreatePartyInput): Promise<PartyObject> {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  const party = await Party.create({
    workspaceId: input.workspaceId,
    name: input.name,
    partyType: input.partyType,
    country: input.country ?? null,
    email: input.email ?? null,
    taxId: input.taxId ?? null,
  });
  return presentParty(party);
}

export async function updateParty(actor: Actor, input: UpdatePartyInput): Promise<PartyObject> {
  return transaction(async (tx) => {
    const party = scope.workspaceObject(actor, await findByPkLocked(Party, input.id, tx), 'Party');
    for (const field of ['name', 'partyType', 'country', 'email', 'taxId'] as const) {
      if (input[field] !== undefined) party.set(field, input[field]);
    }
    await party.save({ transaction: tx });
    return presentParty(party);
  });
}
