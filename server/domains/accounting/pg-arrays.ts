/**
 * A PostgreSQL array literal of integers ('{}' when empty), for `CAST(:param AS int[])` or
 * `bigint[]`: one bound value however many ids, instead of a replacement list spelled into the SQL.
 */
export const intArrayLiteral = (ids: readonly number[]): string => `{${ids.map((id) => Math.trunc(Number(id))).join(',')}}`;
