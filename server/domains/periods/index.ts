/**
 * Accounting periods (CONTRACT §7): what closed periods block, for the other domains, and the
 * periods router and service for the app and the seed (DESIGN §2: one public face per domain).
 */
export { closedPeriodAt, closedPeriodNameSql, lockPeriodsShared, sharedPeriodLockSql } from './period-lock.js';
export { periodsRouter } from './periods.router.js';
export { closePeriod, createPeriod } from './periods.service.js';
