import { defineConfig } from 'vitest/config';

/**
 * The slow suites: crash tests, many randomized race trials, clients generated in other languages, the
 * Schemathesis conformance run (tests/conformance), and the
 * fuzz, access-matrix, token-attack, SSRF and ledger-property suites of npm test again with their long budget
 * (TEST_BUDGET=hard, tests/support/budget.ts: the same files, larger budgets).
 */
export default defineConfig({
  test: {
    include: [
      'tests/cross-cutting/hard/**/*.test.ts',
      'tests/generated-clients/**/*.walk.test.ts',
      // not *.test.ts: npm test (tests/**/*.test.ts) leaves this 3-minute run to test:hard
      'tests/conformance/schemathesis.hard.ts',
      'tests/cross-cutting/security/fuzz.test.ts',
      'tests/cross-cutting/security/access-matrix.test.ts',
      'tests/cross-cutting/security/auth-attacks.test.ts',
      'tests/cross-cutting/security/auth-attacks-ssrf.test.ts',
      'tests/cross-cutting/property/ledger.test.ts',
    ],
    env: { TEST_BUDGET: 'hard' },
    globalSetup: ['tests/setup/global-setup.ts'],
    setupFiles: ['tests/setup/per-file.ts'],
    pool: 'forks',
    testTimeout: 600_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
