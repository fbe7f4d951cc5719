import { z } from 'zod/v4';
import { Success } from '../../../../shared/contracts/common.js';
import {
  BatchPartyMappingsInput,
  BatchUpsertResult,
  ConnectionQuery,
  CreatePartyMappingInput,
  CreateTaxMappingInput,
  MappingIdInput,
  PartyMappingObject,
  ProjectRoutes,
  SetProjectRoutingInput,
  TaxMappingObject,
} from '../../../../shared/contracts/accounting.js';
import { router } from '../../../trpc/init.js';
import { op, permitted } from '../../../trpc/procedures.js';
import * as parties from './party-mappings.service.js';
import * as projects from './project-routing.service.js';
import * as taxes from './tax-mappings.service.js';

const TAG = 'Accounting mappings';
const can = permitted('accounting.mappings');

export const mappingsRouter = router({
  listParties: can
    .meta(op('GET', '/accounting/mappings/parties', 'listPartyMappings', TAG, 'List the party mappings of a connection', [403, 404]))
    .input(ConnectionQuery)
    .output(z.array(PartyMappingObject))
    .query(({ ctx, input }) => parties.listPartyMappings(ctx.actor, input.connectionId)),
  batchParties: can
    .meta(
      op(
        'POST',
        '/accounting/mappings/parties/batch',
        'batchUpsertPartyMappings',
        TAG,
        'Create or update up to 500 party mappings',
        [403, 404],
      ),
    )
    .input(BatchPartyMappingsInput)
    .output(BatchUpsertResult)
    .mutation(({ ctx, input }) => parties.batchUpsertPartyMappings(ctx.actor, input)),
  createParty: can
    .meta(op('POST', '/accounting/mappings/parties', 'createPartyMapping', TAG, 'Map a party to an external record', [403, 404, 409]))
    .input(CreatePartyMappingInput)
    .output(PartyMappingObject)
    .mutation(({ ctx, input }) => parties.createPartyMapping(ctx.actor, input)),
  deleteParty: can
    .meta(op('DELETE', '/accounting/mappings/parties/{id}', 'deletePartyMapping', TAG, 'Delete a party mapping', [403, 404]))
    .input(MappingIdInput)
    .output(Success)
    .mutation(({ ctx, input }) => parties.deletePartyMapping(ctx.actor, input.id)),
  listTaxes: can
    .meta(op('GET', '/accounting/mappings/taxes', 'listTaxMappings', TAG, 'List the tax mappings of a connection', [403, 404]))
    .input(ConnectionQuery)
    .output(z.array(TaxMappingObject))
    .query(({ ctx, input }) => taxes.listTaxMappings(ctx.actor, input.connectionId)),
  createTax: can
    .meta(op('POST', '/accounting/mappings/taxes', 'createTaxMapping', TAG, 'Map a tax code to an external tax code', [403, 404, 409]))
    .input(CreateTaxMappingInput)
    .output(TaxMappingObject)
    .mutation(({ ctx, input }) => taxes.createTaxMapping(ctx.actor, input)),
  deleteTax: can
    .meta(op('DELETE', '/accounting/mappings/taxes/{id}', 'deleteTaxMapping', TAG, 'Delete a tax mapping', [403, 404]))
    .input(MappingIdInput)
    .output(Success)
    .mutation(({ ctx, input }) => taxes.deleteTaxMapping(ctx.actor, input.id)),
  listProjects: can
    .meta(
      op(
        'GET',
        '/accounting/mappings/projects',
        'getProjectRouting',
        TAG,
        "The connection's routed projects (empty = every project)",
        [403, 404],
      ),
    )
    .input(ConnectionQuery)
    .output(ProjectRoutes)
    .query(({ ctx, input }) => projects.getProjectRouting(ctx.actor, input.connectionId)),
  setProjects: can
    .meta(op('POST', '/accounting/mappings/projects', 'setProjectRouting', TAG, "Replace the connection's projectIds", [403, 404]))
    .input(SetProjectRoutingInput)
    .output(ProjectRoutes)
    .mutation(({ ctx, input }) => projects.setProjectRouting(ctx.actor, input)),
});
