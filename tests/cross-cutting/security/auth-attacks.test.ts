import { authAttacksSuite } from './auth-attacks-suite.js';

/**
 * Issue 10: the token attacks the issue names, each against every protected route over REST
 * (fast, in npm test). The long variant runs every forgery in tests/cross-cutting/security/forged-tokens.ts and
 * two more dead-session kinds, over REST and tRPC: tests/cross-cutting/hard/security-auth-attacks.test.ts.
 */
authAttacksSuite({ transports: ['rest'], attacks: 'issue' });
