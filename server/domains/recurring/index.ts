/**
 * The recurring entries domain (CONTRACT §25): entries kept once with an RFC 5545 RRULE and made on their dates
 * through the ledger core, by the scheduler (pg-boss) or `run`. The only module other domains import.
 */
export { recurringRouter } from './recurring.router.js';
export { createRecurring } from './recurring.service.js';
/** For the demo seed (every other caller goes through the router). */
export { runRecurring } from './occurrences.js';
export { runDueRecurring, startRecurringScheduler, DUE_QUEUE, type RecurringScheduler } from './scheduler.js';
