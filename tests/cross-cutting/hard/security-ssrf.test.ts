import { ssrfSuite } from '../security/auth-attacks-ssrf-suite.js';

/** Issue 10: SSRF probes with every spelling of a private target and every redirect code. */
ssrfSuite({ allSpellings: true, redirectCodes: [301, 302, 303, 307, 308] });
