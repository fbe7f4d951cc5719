import { defineConfig } from 'vitest/config';

/** The slow suites: crash tests, long fuzz runs, many randomized race trials, clients generated in other languages. */
export default defineConfig({
  test: {
    include: ['tests/cross-cutting/hard/**/*.test.ts', 'tests/generated-clients/**/*.walk.test.ts'],
    globalSetup: ['tests/setup/global-setup.ts'],
    setupFiles: ['tests/setup/per-file.ts'],
    pool: 'forks',
    testTimeout: 600_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
