import { describe, expect, it } from 'vitest';
import { NON_BLANK_PATTERN, NonBlankText } from '../../../shared/contracts/common.js';

/**
 * Issue 30 (Schemathesis): the document says what the service accepts. A NonBlankText field is validated
 * by `.trim().min(1)` and documented by NON_BLANK_PATTERN; for every text one must accept exactly what
 * the other accepts. The model is the ECMAScript definition of trim (WhiteSpace and LineTerminator),
 * written out here, not the pattern's character list.
 */
const ECMASCRIPT_TRIMMED = [
  '\t',
  '\n',
  '\u000b',
  '\f',
  '\r',
  ' ',
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u2001',
  '\u2002',
  '\u2003',
  '\u2004',
  '\u2005',
  '\u2006',
  '\u2007',
  '\u2008',
  '\u2009',
  '\u200a',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
  '\ufeff',
];
// characters near the edges: kept by trim (a zero-width space, Mongolian vowel separator, NEL), NUL, letters
const OTHERS = ['a', 'Z', '0', '\u200b', '\u180e', '\u0085', '\u0000', 'é', '😀'];

describe('NON_BLANK_PATTERN', () => {
  const pattern = new RegExp(NON_BLANK_PATTERN);
  const field = NonBlankText(100);

  it('accepts exactly the texts NonBlankText accepts (every text of up to 3 of these characters)', () => {
    const alphabet = [...ECMASCRIPT_TRIMMED, ...OTHERS];
    const texts = [''];
    for (let length = 1; length <= 3; length++) {
      for (const prefix of texts.filter((t) => [...t].length === length - 1)) for (const c of alphabet) texts.push(prefix + c);
    }
    for (const text of texts) {
      const blank = [...text].every((c) => ECMASCRIPT_TRIMMED.includes(c));
      expect(field.safeParse(text).success, JSON.stringify(text)).toBe(!blank);
      if (!text.includes('\u0000')) expect(pattern.test(text), JSON.stringify(text)).toBe(!blank);
    }
  });

  it('refuses NUL in the document (PostgreSQL text cannot hold it)', () => {
    expect(pattern.test('a\u0000b')).toBe(false);
  });
});
