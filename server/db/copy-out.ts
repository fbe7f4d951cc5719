import pg from 'pg';
import { Readable } from 'node:stream';
import { to as copyTo } from 'pg-copy-streams';
import { pgClientConfig, PrimaryClient } from './database.js';

/** One parameter as an SQL literal: integers, booleans, text and integer arrays (what list filters bind). */
function literal(value: unknown): string {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`COPY parameter ${value} is not an integer`);
    return String(value);
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return pg.escapeLiteral(value);
  if (Array.isArray(value)) return `'{${value.map((v) => literal(v)).join(',')}}'`;
  throw new Error(`COPY parameter of type ${typeof value} is not supported`);
}

/**
 * `sql` with its positional parameters ($1…) written in as literals: COPY takes no bound
 * parameters. Only the parameters' own text is quoted (pg's escapeLiteral), the SQL is ours.
 */
export function inlineParameters(sql: string, params: readonly unknown[]): string {
  return sql.replace(/\$(\d+)(?!\d)/g, (_m, n: string) => {
    const i = Number(n) - 1;
    if (i < 0 || i >= params.length) throw new Error(`COPY query names $${n} but has ${params.length} parameters`);
    return literal(params[i]);
  });
}

/**
 * The bytes of `COPY (query) TO STDOUT options`, streamed from a connection of its own with
 * backpressure (memory stays flat however many rows match). The connection is closed when the
 * stream ends, fails or is destroyed (a client that hangs up), so no half-read COPY is left behind.
 */
export async function copyOutStream(query: string, params: readonly unknown[], options: string): Promise<Readable> {
  const client = new PrimaryClient(pgClientConfig());
  await client.connect();
  try {
    const stream = client.query(copyTo(`COPY (${inlineParameters(query, params)}) TO STDOUT ${options}`));
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      void client.end().catch(() => undefined);
    };
    stream.once('end', close).once('error', close).once('close', close);
    return stream;
  } catch (err) {
    await client.end().catch(() => undefined);
    throw err;
  }
}
