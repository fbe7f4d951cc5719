import { authAttacksSuite } from '../security/auth-attacks-suite.js';

/** Issue 10: every token forgery and dead session against every protected route, over REST and over tRPC (/trpc). */
authAttacksSuite({ transports: ['rest', 'trpc'], attacks: 'all' });
