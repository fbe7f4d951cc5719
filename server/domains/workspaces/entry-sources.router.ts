import { z } from 'zod/v4';
import { WorkspaceQuery } from '../../../shared/contracts/common.js';
import { EntrySourceObject } from '../../../shared/contracts/tags.js';
import { router } from '../../trpc/init.js';
import { authedProcedure, op } from '../../trpc/procedures.js';
import * as entrySources from './entry-sources.service.js';

export const entrySourcesRouter = router({
  list: authedProcedure
    .meta(
      op(
        'GET',
        '/entry-sources',
        'listEntrySources',
        'Entry sources',
        'Entry sources of a workspace (MANUAL and one per integration)',
        [403],
      ),
    )
    .input(WorkspaceQuery)
    .output(z.array(EntrySourceObject))
    .query(({ ctx, input }) => entrySources.listEntrySources(ctx.actor, input)),
});
