/**
 * The recurring entries domain (CONTRACT §25): entries kept once with an RFC 5545 RRULE and made on their dates
 * through the ledger core, by the scheduler (pg-boss) or `run`. The only module other domains import.
 */
export { recurringRouter } from './recurring.router.js';
export { createRecurring } from './recurring.service.js';
export { runDueRecurring, startRecurringScheduler, DUE_QUEUE, type RecurringScheduler } from './scheduler.js';
