import { defineFuzzSuite } from '../security/fuzz-suite.js';

/** The long OpenAPI fuzz run: at least 1,000 requests per operation (FUZZ_SEED to reproduce). */
defineFuzzSuite(Math.max(1000, Number(process.env.FUZZ_RUNS ?? 1000)));
