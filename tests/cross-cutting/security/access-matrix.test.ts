import { accessMatrixSuite } from './access-matrix-suite.js';

/**
 * Issue 10: the access matrix over REST, where every operation lives (fast, in npm test).
 * The long variant adds the tRPC transport: tests/cross-cutting/hard/security-matrix.test.ts.
 */
accessMatrixSuite({ transports: ['rest'] });
