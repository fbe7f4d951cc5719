/**
 * COPY through the PostgreSQL protocol (pg-copy-streams), the baselines of the CSV export and
 * of ingest: what psql's \copy does, without needing a psql binary on the machine. Timed from
 * the connection on, as a psql run would be.
 */
import { pipeline } from 'node:stream/promises';
import { Readable, Writable } from 'node:stream';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';

/** `COPY (…) TO STDOUT …`: seconds taken and bytes received. */
export async function copyOut(url: string, sql: string): Promise<{ seconds: number; bytes: number }> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    let bytes = 0;
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        done();
      },
    });
    await pipeline(client.query(copyTo(sql)), sink);
    return { seconds: (performance.now() - started) / 1000, bytes };
  } finally {
    await client.end();
  }
}

/** `COPY … FROM STDIN …` of `data`: seconds taken. */
export async function copyIn(url: string, sql: string, data: string): Promise<{ seconds: number }> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await pipeline(Readable.from([Buffer.from(data, 'utf8')]), client.query(copyFrom(sql)));
    return { seconds: (performance.now() - started) / 1000 };
  } finally {
    await client.end();
  }
}
