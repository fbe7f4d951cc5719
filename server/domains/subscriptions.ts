import { entryHooks } from './entries/entry-hooks.js';
import { queueReviewsForNewEntries, requeueAfterEdit } from './accounting/reviews/review-queue.js';
import { markSyncsStale } from './accounting/sync/stale-on-change.js';
import { dissolveMatchOfVoidedEntry } from './banking/index.js';
import { forgetSessionsOnAuthWrites } from './auth/forget-on-write.js';

let registered = false;

/**
 * Where domains subscribe to each other's in-transaction hooks (see entries/entry-hooks.ts),
 * in one readable place. Called at start-up (main, app); safe to call twice.
 */
export function registerSubscriptions(): void {
  if (registered) return;
  registered = true;
  // accounting/reviews: queue reviews for new entries, re-queue CHANGES_REQUESTED on edit
  entryHooks.onCreated(queueReviewsForNewEntries);
  entryHooks.onChanged(requeueAfterEdit);
  // accounting/sync: mark SYNCED records STALE on edit and void
  entryHooks.onChanged(markSyncsStale);
  // banking: voiding (or correcting) a matched entry dissolves its match in the same transaction
  entryHooks.onChanged(async (tx, _before, after, change, actor) => {
    if (change === 'VOIDED') await dissolveMatchOfVoidedEntry(tx, after.id, actor);
  });
  // auth: the session cache forgets a user, session or membership this process writes
  forgetSessionsOnAuthWrites();
}
