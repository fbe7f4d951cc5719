import { QueryTypes, type Model, type ModelStatic, type Transaction, type WhereOptions } from 'sequelize';
import { citusInstalled } from './citus.js';
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
    answer = citusInstalled(pool);
    answers.set(pool, answer);
  }
  return answer;
}

/**
 * The condition that routes a row-locking statement on one row of `table` (addressed by `id`) to that
 * row's shard group on Citus: ` AND <column> = <its workspace>`, the workspace read first without a
 * lock (a read by id may cross shards; a lock may not). On plain PostgreSQL '' and no query: the
 * locking statement stays the one it was. A row that does not exist gets a condition that matches
 * nothing, so the caller's own "not found" answer is unchanged.
 */
export async function lockRoute(table: string, id: string | number, tx?: Transaction, column = 'workspace_id'): Promise<string> {
  const ws = await lockWorkspace(table, id, tx);
  return ws === null ? '' : ` AND ${column} = ${ws}`;
}

/** On Citus the workspace of row `id` of `table` (0 when there is none), read without a lock; null on plain PostgreSQL. */
export async function lockWorkspace(table: string, id: string | number, tx?: Transaction): Promise<number | null> {
  if (!(await onCitus())) return null;
  const [row] = await db().query<{ ws: string | number }>(`SELECT workspace_id AS ws FROM ${table} WHERE id = :id`, {
    replacements: { id },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return row ? Number(row.ws) : 0;
}

/** `lockRoute` followed by the lock itself (`FOR UPDATE`, …): what a `WHERE id = :id` locking read appends. */
export async function lockById(
  table: string,
  id: string | number,
  tx: Transaction | undefined,
  lock: string,
  column?: string,
): Promise<string> {
  return `${await lockRoute(table, id, tx, column)} ${lock}`;
}

/**
 * Sequelize's `findByPk(id, { lock })` that Citus runs too: there the row is found by id first without
 * a lock, then locked by id and workspace (one statement on one shard group). Plain PostgreSQL keeps
 * the single locking read.
 */
export async function findByPkLocked<M extends Model>(model: ModelStatic<M>, id: string | number, tx: Transaction): Promise<M | null> {
  if (!(await onCitus())) return model.findByPk(id, { transaction: tx, lock: tx.LOCK.UPDATE });
  const found = (await model.findByPk(id, { transaction: tx })) as (M & { workspaceId?: number }) | null;
  if (!found) return null;
  return model.findOne({
    where: { id, workspaceId: found.workspaceId } as WhereOptions,
    transaction: tx,
    lock: tx.LOCK.UPDATE,
  });
}

/**
 * The target of an `ON CONFLICT` on a unique index that is not a constraint (`columns`, then its predicate when it is
 * partial): migration 0049 gave every unique index `workspace_id` as its last column on Citus (Citus enforces uniqueness
 * only within a shard), and an `ON CONFLICT` must name the columns of an index. Plain PostgreSQL keeps `(columns)`.
 * A unique constraint keeps its name on both (`ON CONFLICT ON CONSTRAINT name`: no question asked).
 */
export async function conflictColumns(columns: string): Promise<string> {
  return (await onCitus()) ? `(${columns}, workspace_id)` : `(${columns})`;
}

/**
 * ` AND <alias>.workspace_id = <of>.workspace_id`: what a subquery or join adds to be co-located with row `of` on
 * Citus (the distribution column on both sides), so the statement is pushed down to the shards whole.
 */
export const sameWorkspace = (alias: string, of = 'e'): string => ` AND ${alias}.workspace_id = ${of}.workspace_id`;

/**
 * Every row of `table` (a tenant table), locked with `lock` in id order — for maintenance that rewrites them all
 * (npm run rotate-keys). Citus locks rows only in a statement routed to one shard group: there they are locked
 * workspace by workspace (in workspace order, each by id); plain PostgreSQL keeps the one locking read.
 */
export async function lockEveryRow<T extends object>(tx: Transaction, table: string, lock = 'FOR NO KEY UPDATE'): Promise<T[]> {
  const read = (where: string, replacements?: Record<string, unknown>) =>
    db().query<T>(`SELECT * FROM ${table}${where} ORDER BY id ${lock}`, { replacements, type: QueryTypes.SELECT, transaction: tx });
  if (!(await onCitus())) return read('');
  const workspaces = await db().query<{ ws: number }>(`SELECT DISTINCT workspace_id AS ws FROM ${table} ORDER BY 1`, {
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  const rows: T[] = [];
  for (const { ws } of workspaces) rows.push(...(await read(' WHERE workspace_id = :ws', { ws })));
  return rows;
}
