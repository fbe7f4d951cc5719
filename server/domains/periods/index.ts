/**
 * Accounting periods (CONTRACT §7): what closed periods block, for the ledger core and the other
 * domains. The periods service and router are reached by the app (trpc/router.ts, seed) directly,
 * so the ledger core's dependency on this file stays free of the service's own dependencies.
 */
export { closedPeriodAt, closedPeriodNameSql, lockPeriodsShared, sharedPeriodLockSql } from './period-lock.js';
