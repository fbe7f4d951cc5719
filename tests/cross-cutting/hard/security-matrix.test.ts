import { accessMatrixSuite } from '../security/access-matrix-suite.js';

/** Issue 10: the access matrix over REST and over tRPC (/trpc), which serves every procedure a second time. */
accessMatrixSuite({ transports: ['rest', 'trpc'] });
