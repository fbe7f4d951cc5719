import { defineFuzzSuite } from './fuzz-suite.js';

/** Issue 29: the OpenAPI fuzzer with an app's API key as the bearer of every protected operation (fewer runs than as a user). */
defineFuzzSuite(Number(process.env.FUZZ_KEY_RUNS ?? 20), { asApiKey: true });
