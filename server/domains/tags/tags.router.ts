import { z } from 'zod/v4';
import { IdPath, Success } from '../../../shared/contracts/common.js';
import { CreateTagInput, ListTagsQuery, TagObject, UpdateTagInput } from '../../../shared/contracts/tags.js';
import { router } from '../../trpc/init.js';
import { authedProcedure, op, permitted } from '../../trpc/procedures.js';
import * as tags from './tags.service.js';

const TAG = 'Tags';

export const tagsRouter = router({
  list: authedProcedure
    .meta(op('GET', '/tags', 'listTags', TAG, 'Tags of a workspace (archived ones with includeArchived=true)', [403]))
    .input(ListTagsQuery)
    .output(z.array(TagObject))
    .query(({ ctx, input }) => tags.listTags(ctx.actor, input)),
  create: permitted('entry.edit')
    .meta(op('POST', '/tags', 'createTag', TAG, 'Create a tag (name unique per workspace, ignoring case)', [403, 409]))
    .input(CreateTagInput)
    .output(TagObject)
    .mutation(({ ctx, input }) => tags.createTag(ctx.actor, input)),
  update: permitted('entry.edit')
    .meta(op('PATCH', '/tags/{id}', 'updateTag', TAG, 'Rename or recolour a tag', [403, 404, 409]))
    .input(UpdateTagInput)
    .output(TagObject)
    .mutation(({ ctx, input }) => tags.updateTag(ctx.actor, input)),
  delete: permitted('entry.edit')
    .meta(op('DELETE', '/tags/{id}', 'deleteTag', TAG, 'Delete (archive) a tag: it stays on the entries that carry it', [403, 404]))
    .input(IdPath)
    .output(Success)
    .mutation(({ ctx, input }) => tags.deleteTag(ctx.actor, input)),
});
