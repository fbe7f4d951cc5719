import { runtime } from '../../../runtime.js';
import { SYSTEM } from '../../entries/index.js';
import { runPush } from '../sync/push.js';
import { findReview } from './review-rows.js';

/**
 * The seam between approval and sync: runs after an approval has committed when the review's
 * connection is in AUTO_PUSH or BIDIRECTIONAL mode (CONTRACT §8: the entry is pushed right after
 * the approval commits). A push that fails — or a push precondition of §9 that does not hold —
 * leaves the review APPROVED and the sync record FAILED, its lastError naming the cause.
 */
export async function afterApprovalPush(reviewId: string): Promise<void> {
  const review = await findReview(reviewId);
  if (!review || review.status !== 'APPROVED' || !review.connection_id) return;
  await runPush({ connectionId: review.connection_id, entryId: review.entry_id, who: SYSTEM, mode: 'APPROVAL' });
}

/** The approval has committed and stays APPROVED whatever happens here: a failure is logged, never thrown. */
export async function runAfterApprovalPush(reviewId: string): Promise<void> {
  try {
    await afterApprovalPush(reviewId);
  } catch (err) {
    runtime().logger.error({ err, reviewId }, 'after-approval push failed');
  }
}
