import { byBudget } from '../../support/budget.js';
import { ssrfSuite } from './auth-attacks-ssrf-suite.js';

/**
 * Issue 10: SSRF probes against a custom provider's base URL. `npm test`: the targets and a 302 to
 * loopback; `npm run test:hard`: every spelling of a private target and every redirect code.
 */
ssrfSuite(byBudget({ allSpellings: false, redirectCodes: [302] }, { allSpellings: true, redirectCodes: [301, 302, 303, 307, 308] }));
