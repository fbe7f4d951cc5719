import { afterAll } from 'vitest';
import { runCleanups } from './cleanup-registry.js';

export { onCleanup, waitFor, isAlive } from './cleanup-registry.js';

// registered when the test file imports this module (a hook added from inside beforeAll would not run)
afterAll(runCleanups, 120_000);
