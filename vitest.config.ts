import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // slow suites (crash tests, long fuzz and race runs, generated-client walks) run with `npm run test:hard`
    exclude: ['tests/cross-cutting/hard/**', 'tests/generated-clients/**/*.walk.test.ts', '**/node_modules/**'],
    globalSetup: ['tests/setup/global-setup.ts'],
    setupFiles: ['tests/setup/per-file.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
