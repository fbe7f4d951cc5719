/**
 * What an error message must look like (issue 37): a sentence a person can read, with balanced
 * quotes and brackets, not cut off. Used by the HTTP client of the tests on every 4xx answer
 * (tests/support/http.ts) and by the static sweep over the server's messages.
 */
export function messageProblem(message: string): string | null {
  if (message.trim() === '') return 'is empty';
  if (message !== message.trim()) return 'has leading or trailing whitespace';
  if (/[,:;(-]$/.test(message)) return 'ends mid-sentence';
  const count = (ch: string) => message.split(ch).length - 1;
  if (count('"') % 2 !== 0) return 'has an unbalanced double quote';
  if (count('`') % 2 !== 0) return 'has an unbalanced backtick';
  if (count('“') !== count('”')) return 'has unbalanced curly quotes';
  for (const [open, close] of [
    ['(', ')'],
    ['[', ']'],
    ['{', '}'],
  ] as const) {
    let depth = 0;
    for (const ch of message) {
      if (ch === open) depth++;
      if (ch === close && --depth < 0) return `has an unbalanced ${close}`;
    }
    if (depth !== 0) return `has an unbalanced ${open}`;
  }
  return null;
}
