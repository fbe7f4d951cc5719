/** The accounting domain's public surface for other domains (DESIGN §2). */
import { afterEntryClosed, afterEntryEdited } from './entry-changes.js';
import { queueReviewsForNewEntries, reviewsDueSql } from './reviews/review-queue.js';

/** What reviews do when the ledger core creates entries (wired in server/domains/reactions.ts). */
export const reviewReactions = {
  queueForNewEntries: queueReviewsForNewEntries,
  dueSql: reviewsDueSql,
};

/**
 * What an edit (reviews re-queued, SYNCED copies STALE) and a void or cancel (open reviews CANCELLED, on a void
 * SYNCED copies STALE) do to an entry's reviews and sync records; each returns its effects for the ledger core.
 */
export const entryChangeReactions = { afterEntryEdited, afterEntryClosed };

/** The accounting routers, for the app router. */
export { connectionsRouter } from './connections/connections.router.js';
export { categoriesRouter } from './categories/categories.router.js';
export { mappingsRouter } from './mappings/mappings.router.js';
export { reviewsRouter } from './reviews/reviews.router.js';
export { accountingDashboardRouter } from './dashboard/dashboard.router.js';
export { syncRouter } from './sync/sync.router.js';

/** The inbound accounting webhooks (CONTRACT §10) and the scheduled pulls, for the app and main. */
export { WEBHOOK_PREFIX, webhookRawBody, webhookRoutes } from './provider-webhooks/webhook.http.js';
export { startSyncScheduler } from './sync/scheduled-pulls.js';

/** Accounting use cases, for the demo seed. */
export { createCategory } from './categories/categories.service.js';
export { createConnection } from './connections/connections.service.js';
export { batchUpsertPartyMappings } from './mappings/party-mappings.service.js';
export { createTaxMapping } from './mappings/tax-mappings.service.js';
export { approveReview, assignReview, rejectReview, requestChanges } from './reviews/review-decisions.js';
export { createReview } from './reviews/reviews.service.js';
export { push } from './sync/sync.service.js';
