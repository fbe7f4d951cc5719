import { raceSuite } from './support/race-suite.js';

/** Issue 10, races: many randomized trials of each kind (seeds printed; replay with HARD_SEED). */
raceSuite(Number(process.env.RACE_TRIALS ?? 50), ['refund', 'reimburse', 'push', 'ingest', 'idempotency']);
