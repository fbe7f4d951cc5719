import { z } from 'zod/v4';
import { Success } from '../../../../shared/contracts/common.js';
import {
  CategoryIdInput,
  CategoryObject,
  CreateCategoryInput,
  ListCategoriesQuery,
  UpdateCategoryInput,
} from '../../../../shared/contracts/accounting.js';
import { router } from '../../../trpc/init.js';
import { op, permitted } from '../../../trpc/procedures.js';
import * as categories from './categories.service.js';

const TAG = 'Accounting categories';
const can = permitted('accounting.categories');

export const categoriesRouter = router({
  list: can
    .meta(
      op(
        'GET',
        '/accounting/categories',
        'listCategories',
        TAG,
        'List the chart of accounts of a workspace (active only by default)',
        [403],
      ),
    )
    .input(ListCategoriesQuery)
    .output(z.array(CategoryObject))
    .query(({ ctx, input }) => categories.listCategories(ctx.actor, input.workspaceId, input.includeInactive ?? false)),
  create: can
    .meta(op('POST', '/accounting/categories', 'createCategory', TAG, 'Create a category (chart-of-accounts item)', [403, 409]))
    .input(CreateCategoryInput)
    .output(CategoryObject)
    .mutation(({ ctx, input }) => categories.createCategory(ctx.actor, input)),
  update: can
    .meta(op('PATCH', '/accounting/categories/{id}', 'updateCategory', TAG, 'Update a category', [403, 404, 409]))
    .input(UpdateCategoryInput)
    .output(CategoryObject)
    .mutation(({ ctx, input }) => categories.updateCategory(ctx.actor, input)),
  deactivate: can
    .meta(op('DELETE', '/accounting/categories/{id}', 'deactivateCategory', TAG, 'Deactivate a category', [403, 404, 409]))
    .input(CategoryIdInput)
    .output(Success)
    .mutation(({ ctx, input }) => categories.deactivateCategory(ctx.actor, input.id)),
});
