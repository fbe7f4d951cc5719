import {
  ApproveReviewInput,
  BatchApproveInput,
  BatchRejectInput,
  BatchReviewResult,
  CreateReviewInput,
  ListReviewsQuery,
  ReviewIdInput,
  ReviewNotesInput,
  ReviewObject,
} from '../../../../shared/contracts/accounting.js';
import { Page } from '../../../../shared/contracts/common.js';
import { router } from '../../../trpc/init.js';
import { op, permitted } from '../../../trpc/procedures.js';
import * as decisions from './review-decisions.js';
import * as reviews from './reviews.service.js';

const TAG = 'Accounting reviews';
const can = permitted('accounting.review');

export const reviewsRouter = router({
  batchApprove: can
    .meta(
      op('POST', '/accounting/reviews/batch/approve', 'batchApproveReviews', TAG, 'Approve up to 100 reviews, each on its own', [403], {
        description: 'Each review is approved in its own transaction; the result lists every review with success or the error.',
      }),
    )
    .input(BatchApproveInput)
    .output(BatchReviewResult)
    .mutation(({ ctx, input }) => decisions.batchApprove(ctx.actor, input)),
  batchReject: can
    .meta(op('POST', '/accounting/reviews/batch/reject', 'batchRejectReviews', TAG, 'Reject up to 100 reviews, each on its own', [403]))
    .input(BatchRejectInput)
    .output(BatchReviewResult)
    .mutation(({ ctx, input }) => decisions.batchReject(ctx.actor, input)),
  list: can
    .meta(
      op('GET', '/accounting/reviews', 'listReviews', TAG, 'List reviews (needs workspaceId or connectionId), newest first', [403, 404]),
    )
    .input(ListReviewsQuery)
    .output(Page(ReviewObject))
    .query(({ ctx, input }) => reviews.listReviews(ctx.actor, input)),
  create: can
    .meta(op('POST', '/accounting/reviews', 'createReview', TAG, 'Queue an entry for review', [403, 404, 409]))
    .input(CreateReviewInput)
    .output(ReviewObject)
    .mutation(({ ctx, input }) => reviews.createReview(ctx.actor, input)),
  get: can
    .meta(op('GET', '/accounting/reviews/{id}', 'getReview', TAG, 'Get a review with its entry', [403, 404]))
    .input(ReviewIdInput)
    .output(ReviewObject)
    .query(({ ctx, input }) => reviews.getReview(ctx.actor, input.id)),
  assign: can
    .meta(op('PATCH', '/accounting/reviews/{id}/assign', 'assignReview', TAG, 'Take the review (caller becomes reviewer)', [403, 404, 409]))
    .input(ReviewIdInput)
    .output(ReviewObject)
    .mutation(({ ctx, input }) => decisions.assignReview(ctx.actor, input.id)),
  approve: can
    .meta(
      op(
        'PATCH',
        '/accounting/reviews/{id}/approve',
        'approveReview',
        TAG,
        'Approve the review; the entry becomes COMPLETED',
        [403, 404, 409],
      ),
    )
    .input(ApproveReviewInput)
    .output(ReviewObject)
    .mutation(({ ctx, input }) => decisions.approveReview(ctx.actor, input)),
  reject: can
    .meta(
      op('PATCH', '/accounting/reviews/{id}/reject', 'rejectReview', TAG, 'Reject the review; the entry becomes REJECTED', [403, 404, 409]),
    )
    .input(ReviewNotesInput)
    .output(ReviewObject)
    .mutation(({ ctx, input }) => decisions.rejectReview(ctx.actor, input)),
  requestChanges: can
    .meta(
      op(
        'PATCH',
        '/accounting/reviews/{id}/request-changes',
        'requestReviewChanges',
        TAG,
        'Send back for changes; the entry becomes PENDING',
        [403, 404, 409],
      ),
    )
    .input(ReviewNotesInput)
    .output(ReviewObject)
    .mutation(({ ctx, input }) => decisions.requestChanges(ctx.actor, input)),
});
