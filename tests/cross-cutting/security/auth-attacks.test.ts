import { byBudget } from '../../support/budget.js';
import { authAttacksSuite } from './auth-attacks-suite.js';

/**
 * Issue 10: token attacks against every protected route. `npm test`: the attacks the issue names, over REST;
 * `npm run test:hard`: every forgery in tests/cross-cutting/security/forged-tokens.ts and two more dead-session
 * kinds, over REST and tRPC.
 */
authAttacksSuite(byBudget({ transports: ['rest'], attacks: 'issue' }, { transports: ['rest', 'trpc'], attacks: 'all' }));
