/** The accounting domain's public surface for other domains (DESIGN §2). */
import { afterEntryEdited } from './after-edit.js';
import { cancelOpenReviews, queueReviewsForNewEntries, reviewsDueSql } from './reviews/review-queue.js';
import { markSyncsStale } from './sync/stale-on-change.js';

/** What reviews do when the ledger core changes an entry (wired in server/domains/reactions.ts). */
export const reviewReactions = {
  queueForNewEntries: queueReviewsForNewEntries,
  dueSql: reviewsDueSql,
  cancelOpenReviews,
};

/** An edit's effect on the entry's reviews (re-queued) and sync records (STALE), in one statement; true when a review was re-queued. */
export const entryEditReactions = { afterEntryEdited };

/** What sync records do when the ledger core changes an entry (wired in server/domains/reactions.ts). */
export const syncReactions = { markStale: markSyncsStale };
