import { describe, expect, it } from 'vitest';
import { outdent, replaceOnce } from '../../../server/db/migrations/types.js';

/**
 * A migration that derives a function from an earlier migration's exported text (0050 from 0048's, 0051 from 0044's)
 * changes only the places it names: each must occur exactly once, and only indentation that is there is taken off.
 * (A derivation whose anchor is gone throws when its migration's module loads; that the derived functions are the
 * same text as before is checked by sql-definitions.test.ts.)
 */
describe('the text helpers of the migrations', () => {
  it('replaceOnce replaces the one occurrence of its anchor', () => {
    expect(replaceOnce('a b c', 'b', 'x y', 'T')).toBe('a x y c');
  });

  it('replaceOnce throws when its anchor is missing, repeated (overlapping too) or empty', () => {
    expect(() => replaceOnce('a b c', 'd', 'x', 'T')).toThrow('expected exactly one "d…" in T');
    expect(() => replaceOnce('a b a', 'a', 'x', 'T')).toThrow('expected exactly one');
    expect(() => replaceOnce('aaa', 'aa', 'x', 'T')).toThrow('expected exactly one');
    expect(() => replaceOnce('abc', '', 'x', 'T')).toThrow('expected exactly one');
  });

  it('outdent takes the indentation off every line that is not empty, and throws when a line has less', () => {
    expect(outdent('    a\n\n      b', 2, 'T')).toBe('  a\n\n    b');
    expect(() => outdent('    a\n b', 2, 'T')).toThrow('expected every line of T to start with 2 spaces');
  });
});
