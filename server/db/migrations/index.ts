import type { Migration } from './types.js';
import { m0001 } from './0001-foundation.js';
import { m0002 } from './0002-entries.js';

/** Every migration in order. Add new ones at the end; never edit a landed one. */
export const migrations: Migration[] = [m0001, m0002];
