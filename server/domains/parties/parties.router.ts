import { z } from 'zod/v4';
import { WorkspaceQuery } from '../../../shared/contracts/common.js';
import { CreatePartyInput, PartyObject, UpdatePartyInput } from '../../../shared/contracts/parties.js';
import { router } from '../../trpc/init.js';
import { authedProcedure, op, permitted } from '../../trpc/procedures.js';
import * as parties from './parties.service.js';

const TAG = 'Parties';

export const partiesRouter = router({
  list: authedProcedure
    .meta(op('GET', '/parties', 'listParties', TAG, 'Parties (people and organisations) of a workspace', [403]))
    .input(WorkspaceQuery)
    .output(z.array(PartyObject))
    .query(({ ctx, input }) => parties.listParties(ctx.actor, input)),
  create: permitted('party.create')
    .meta(op('POST', '/parties', 'createParty', TAG, 'Create a party', [403]))
    .input(CreatePartyInput)
    .output(PartyObject)
    .mutation(({ ctx, input }) => parties.createParty(ctx.actor, input)),
  update: permitted('party.edit')
    .meta(op('PATCH', '/parties/{id}', 'updateParty', TAG, 'Change a party (null clears an optional field)', [403, 404]))
    .input(UpdatePartyInput)
    .output(PartyObject)
    .mutation(({ ctx, input }) => parties.updateParty(ctx.actor, input)),
});
