import { byBudget } from '../../support/budget.js';
import { defineFuzzSuite } from './fuzz-suite.js';

/**
 * The OpenAPI fuzzer: 60 requests per operation in `npm test`, at least 1,000 in `npm run test:hard`
 * (FUZZ_RUNS overrides; FUZZ_SEED reproduces a run).
 */
const runs = Number(process.env.FUZZ_RUNS ?? byBudget(60, 1000));
defineFuzzSuite(byBudget(runs, Math.max(1000, runs)));
