import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';

const PERIOD_LOCK_CLASS = 4_201;

/**
 * Writes that a closed period blocks take this lock shared; closing and reopening take it
 * exclusively, so that no entry write can slip into a period while it is being closed.
 */
export async function lockPeriodsShared(tx: Transaction, workspaceId: number): Promise<void> {
  await db().query('SELECT pg_advisory_xact_lock_shared(:cls, :ws)', {
    replacements: { cls: PERIOD_LOCK_CLASS, ws: workspaceId },
    transaction: tx,
  });
}

export async function lockPeriodsExclusive(tx: Transaction, workspaceId: number): Promise<void> {
  await db().query('SELECT pg_advisory_xact_lock(:cls, :ws)', {
    replacements: { cls: PERIOD_LOCK_CLASS, ws: workspaceId },
    transaction: tx,
  });
}

/**
 * SQL expression taking the shared lock of workspace `ws` (an SQL expression), for writers
 * that fold the lock into a statement of their own. The closed-period check must come in a
 * LATER statement: a statement's snapshot is taken before it waits for the lock.
 */
export const sharedPeriodLockSql = (ws: string) => `pg_advisory_xact_lock_shared(${PERIOD_LOCK_CLASS}, ${ws})`;

/**
 * SQL: the name of the closed period of workspace `ws` containing `date` (SQL expressions), or NULL — the body of
 * `closed_period_name(ws, day)` (migration 0023), PostgreSQL's definition of "in a closed period" that its triggers
 * call, written out here because Citus cannot call a function that reads a distributed table from a statement run
 * on a shard (CONTRACT §24). tests/periods/closed-period-sql.test.ts holds the two equal.
 */
export const closedPeriodNameSql = (ws: string, date: string) => `(SELECT cp.name FROM accounting_periods cp
   WHERE cp.workspace_id = ${ws} AND cp.status = 'CLOSED' AND cp.start_date <= ${date} AND cp.end_date >= ${date}
   ORDER BY cp.start_date LIMIT 1)`;

/** The closed period containing `date` (bounds inclusive), if any. */
export async function closedPeriodAt(tx: Transaction, workspaceId: number, date: string): Promise<{ name: string } | undefined> {
  const [row] = await db().query<{ name: string | null }>(`SELECT ${closedPeriodNameSql(':ws', ':date')} AS name`, {
    replacements: { ws: workspaceId, date },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return row.name === null ? undefined : { name: row.name };
}
