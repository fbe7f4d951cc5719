import Cursor from 'pg-cursor';
import { pgClientConfig, PrimaryClient } from './database.js';

/**
 * Rows of a query, a batch at a time (`rowMode: 'array'` gives each row as an array of its
 * columns), read through a server-side cursor on a connection of its own, so memory
 * stays flat however many rows match. The connection is closed when iteration ends,
 * whether it ran to the end, failed or was abandoned, so the pool is never left with a
 * half-read portal.
 */
export async function* cursorBatches<T>(
  sql: string,
  params: unknown[],
  opts: { batchSize?: number; rowMode?: 'array' } = {},
): AsyncGenerator<T[]> {
  const batchSize = opts.batchSize ?? 2000;
  const client = new PrimaryClient(pgClientConfig());
  await client.connect();
  try {
    const cursor = client.query(new Cursor<T>(sql, params, { rowMode: opts.rowMode }));
    for (;;) {
      const rows = await cursor.read(batchSize);
      if (rows.length) yield rows;
      if (rows.length < batchSize) return;
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}
