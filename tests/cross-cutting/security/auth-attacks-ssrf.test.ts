import { ssrfSuite } from './auth-attacks-ssrf-suite.js';

/**
 * Issue 10: SSRF probes against a custom provider's base URL, the targets and a 302 to
 * loopback (fast, in npm test). The long variant: tests/cross-cutting/hard/security-ssrf.test.ts.
 */
ssrfSuite({ allSpellings: false, redirectCodes: [302] });
