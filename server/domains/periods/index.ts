/** Accounting periods (CONTRACT §7): what closed periods block, for the ledger core and the accounting domain. */
export { assertPeriodsOpen, closedPeriodAt, closedPeriodNameSql, lockPeriodsShared, sharedPeriodLockSql } from './period-lock.js';
export { closePeriod, createPeriod } from './periods.service.js';
export { periodsRouter } from './periods.router.js';
