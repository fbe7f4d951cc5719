/**
 * What an error message must look like (issue 37): a sentence a person can read, with balanced
 * quotes and brackets, not cut off. Used by the HTTP client of the tests on every 4xx answer
 * (tests/support/http.ts) and by the static sweep over the server's messages.
 */
export function messageProblem(message: string): string | null {
  if (message.trim() === '') return 'is empty';
  if (message !== message.trim()) return 'has leading or trailing whitespace';
  if (/[,:;(-]$/.test(message)) return 'ends mid-sentence';
  const unescaped = message.replace(/\\"/g, ''); // a quoted value's own quotes, escaped as JSON does
  const count = (ch: string) => unescaped.split(ch).length - 1;
  if (count('"') % 2 !== 0) return 'has an unbalanced double quote';
  if (count('`') % 2 !== 0) return 'has an unbalanced backtick';
  if (count('“') !== count('”')) return 'has unbalanced curly quotes';
  const prose = unescaped.replace(/"[^"]*"|`[^`]*`|“[^”]*”/g, '""'); // what a message quotes is the caller's, not prose
  for (const [open, close] of [
    ['(', ')'],
    ['[', ']'],
    ['{', '}'],
  ] as const) {
    let depth = 0;
    for (const ch of prose) {
      if (ch === open) depth++;
      if (ch === close && --depth < 0) return `has an unbalanced ${close}`;
    }
    if (depth !== 0) return `has an unbalanced ${open}`;
  }
  return null;
}
