import { describe, expect, it } from 'vitest';
import { messageProblem } from '../../support/error-messages.js';
import { startServer } from '../../support/http.js';

/**
 * Issue 37: error messages read as sentences with balanced quotes. The check itself, and the
 * messages that once failed it; every 4xx any suite provokes through tests/support/http.ts is
 * checked the same way as it arrives.
 */
describe('error messages', () => {
  it('flags unbalanced quotes and brackets, cut-off and empty messages; passes sentences', () => {
    expect(messageProblem('Unsupported content-type "text/plain')).toBe('has an unbalanced double quote');
    expect(messageProblem('Use `limit')).toBe('has an unbalanced backtick');
    expect(messageProblem('Bad (very')).toBe('has an unbalanced (');
    expect(messageProblem('Bad very)')).toBe('has an unbalanced )');
    expect(messageProblem('The host is:')).toBe('ends mid-sentence');
    expect(messageProblem(' ')).toBe('is empty');
    expect(messageProblem('Entry not found')).toBeNull();
    expect(messageProblem('Pattern "(unclosed" is not an RE2 regular expression: missing closing ")"')).toBeNull();
    expect(messageProblem('Pattern "a\\"(b" is not valid')).toBeNull();
    expect(messageProblem('error parsing regexp: missing closing ): `(a`')).toBe('has an unbalanced )');
    expect(messageProblem('The webhook host "x" resolves to 10.0.0.1 (private); only public addresses may be called')).toBeNull();
  });

  it('a non-JSON body of a REST operation answers 415 with a closed quote and the remedy', async () => {
    const api = await startServer();
    const res = await api.request('POST', '/auth/login', {
      rawBody: 'email=a',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      message: 'Unsupported content type "application/x-www-form-urlencoded": send the body as application/json',
      code: 'UNSUPPORTED_MEDIA_TYPE',
    });
  });
});
