import type { Sequelize } from 'sequelize-typescript';

export type Migration = {
  name: string;
  up: (db: Sequelize) => Promise<void>;
  down: (db: Sequelize) => Promise<void>;
};

export const sql = (statements: string) => async (db: Sequelize) => {
  await db.query(statements);
};

/**
 * `text` with its one occurrence of `from` replaced by `to`, for a migration that derives its SQL from an earlier one's
 * exported text (a migration must not change what it did not mean to): throws unless `from` occurs exactly once in it.
 * `of` names the text, for the error.
 */
export function replaceOnce(text: string, from: string, to: string, of: string): string {
  const at = text.indexOf(from);
  if (at < 0 || text.indexOf(from, at + 1) >= 0) throw new Error(`expected exactly one "${from.slice(0, 40)}…" in ${of}`);
  return text.slice(0, at) + to + text.slice(at + from.length);
}

/**
 * `text` with `by` spaces taken off the start of every line that is not empty (a function body is stored as written,
 * its indentation included: a derived text indented as its new migration's other functions are): throws if a line does
 * not start with them. `of` names the text, for the error.
 */
export function outdent(text: string, by: number, of: string): string {
  const pad = ' '.repeat(by);
  return text
    .split('\n')
    .map((line) => {
      if (line === '') return line;
      if (!line.startsWith(pad)) throw new Error(`expected every line of ${of} to start with ${by} spaces: "${line.slice(0, 40)}…"`);
      return line.slice(by);
    })
    .join('\n');
}
