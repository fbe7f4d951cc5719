/** The accounting domain's public surface for other domains (DESIGN §2). */
import { cancelOpenReviews, queueReviewsForNewEntries, requeueAfterEdit, reviewsDueSql } from './reviews/review-queue.js';
import { markSyncsStale } from './sync/stale-on-change.js';

/** What reviews do when the ledger core changes an entry (wired in server/domains/reactions.ts). */
export const reviewReactions = {
  queueForNewEntries: queueReviewsForNewEntries,
  dueSql: reviewsDueSql,
  requeueAfterEdit,
  cancelOpenReviews,
};

/** What sync records do when the ledger core changes an entry (wired in server/domains/reactions.ts). */
export const syncReactions = { markStale: markSyncsStale };
