import { QueryTypes } from 'sequelize';
import { db } from './database.js';

const answers = new WeakMap<object, Promise<boolean>>();

/**
 * Whether the database is a Citus coordinator (CONTRACT §24), asked once per connection pool.
 * Citus locks rows (`FOR UPDATE`, `SKIP LOCKED`) only in a statement routed to one shard group, so
 * the background claimers that pick work across workspaces claim it workspace by workspace there.
 */
export function onCitus(): Promise<boolean> {
  const pool = db();
  let answer = answers.get(pool);
  if (!answer) {
    answer = pool
      .query<{ on: boolean }>(`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS on`, { type: QueryTypes.SELECT })
      .then(([row]) => row?.on === true);
    answers.set(pool, answer);
  }
  return answer;
}
