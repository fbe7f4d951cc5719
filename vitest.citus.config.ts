import { defineConfig } from 'vitest/config';

/**
 * `npm run test:citus` (TEST_CITUS=1): suites of npm test run again against a Citus cluster of a coordinator and two
 * workers (tests/setup/citus-template.ts), the service's own routes over HTTP: the ones whose SQL Citus refused until
 * each statement named its workspace (CONTRACT §24). Any other file runs there too with
 * `TEST_CITUS=1 npx vitest run <file>`; files that create triggers on distributed tables or read plans cannot.
 */
export default defineConfig({
  test: {
    include: [
      'tests/entries/caps.test.ts',
      'tests/entries/concurrency.test.ts',
      'tests/entries/crud.test.ts',
      'tests/entries/export.test.ts',
      'tests/entries/list.test.ts',
      'tests/integrations/ingest.test.ts',
      'tests/integrations/ingest-concurrency.test.ts',
      'tests/integrations/ingest-rate-limit.test.ts',
      'tests/reports/reports.test.ts',
      'tests/reports/access.test.ts',
      'tests/fx/revalue.test.ts',
      'tests/banking/matching.test.ts',
      'tests/banking/suggestions.test.ts',
      'tests/documents/inbox.test.ts',
      'tests/periods/closed-period-sql.test.ts',
      'tests/outbound-webhooks/endpoints.test.ts',
      'tests/cross-cutting/http/surface-query.test.ts',
      'tests/cross-cutting/http/idempotency-recovery.test.ts',
      'tests/users/users.test.ts',
      'tests/users/takeover.test.ts',
      'tests/books/export.test.ts',
      'tests/books/write-routes.test.ts',
      'tests/accounting/reviews/review-queue.test.ts',
      'tests/accounting/sync/api.test.ts',
      'tests/accounting/provider-webhooks/webhooks.test.ts',
    ],
    globalSetup: ['tests/setup/global-setup.ts'],
    setupFiles: ['tests/setup/per-file.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 180_000,
    reporters: ['default'],
  },
});
