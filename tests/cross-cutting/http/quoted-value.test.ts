import { describe, expect, it } from 'vitest';
import { quotedValue } from '../../../server/lib/errors.js';
import { messageProblem } from '../../support/error-messages.js';

/** A caller's value inside a 4xx message (e.g. a hostile Content-Type) leaves the message a sentence. */
describe('quotedValue', () => {
  it('keeps the message balanced whatever the value holds', () => {
    const hostile = ['\\', '"', '\\"', '{"$gt": ""}', '`x', '“a', '" OR ""="', '=cmd|"/c calc"!A1', 'a\\\\"b', 'x'.repeat(200)];
    for (const value of hostile) {
      expect(messageProblem(`Unsupported content type ${quotedValue(value)}: send the body as application/json`), value).toBeNull();
    }
  });

  it('reads back as the value (JSON), cut at 80 characters', () => {
    expect(JSON.parse(quotedValue('text/plain; charset="x"'))).toBe('text/plain; charset="x"');
    expect(JSON.parse(quotedValue('a\\b'))).toBe('a\\b');
    expect(JSON.parse(quotedValue('y'.repeat(100)))).toBe(`${'y'.repeat(80)}…`);
  });
});
