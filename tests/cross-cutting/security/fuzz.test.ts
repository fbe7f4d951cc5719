import { defineFuzzSuite } from './fuzz-suite.js';

/** Fast variant of the OpenAPI fuzzer (`npm test`); tests/cross-cutting/hard/fuzz.test.ts sends 1,000 per operation. */
defineFuzzSuite(Number(process.env.FUZZ_RUNS ?? 60));
