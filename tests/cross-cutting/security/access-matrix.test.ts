import { byBudget } from '../../support/budget.js';
import { accessMatrixSuite } from './access-matrix-suite.js';

/**
 * Issue 10: the access matrix over REST, where every operation lives (`npm test`); `npm run test:hard`
 * adds the tRPC transport (/trpc), which serves every procedure a second time.
 */
accessMatrixSuite({ transports: byBudget(['rest'], ['rest', 'trpc']) });
