import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { conflict } from '../../lib/errors.js';

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

/** SQL subquery: the name of the closed period of workspace `ws` containing `date` (SQL expressions), or NULL. */
export const closedPeriodNameSql = (ws: string, date: string) =>
  `(SELECT name FROM accounting_periods
     WHERE workspace_id = ${ws} AND status = 'CLOSED' AND start_date <= ${date} AND end_date >= ${date} LIMIT 1)`;

/** The closed period containing `date` (bounds inclusive), if any. */
export async function closedPeriodAt(tx: Transaction, workspaceId: number, date: string): Promise<{ name: string } | undefined> {
  const [row] = await db().query<{ name: string | null }>(`SELECT ${closedPeriodNameSql(':ws', ':date')} AS name`, {
    replacements: { ws: workspaceId, date },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return row.name === null ? undefined : { name: row.name };
}

/** 409 when any of the dates falls in a closed period of the workspace. */
export async function assertPeriodsOpen(tx: Transaction, workspaceId: number, dates: (string | undefined)[]): Promise<void> {
  await lockPeriodsShared(tx, workspaceId);
  for (const date of new Set(dates.filter((d): d is string => !!d))) {
    const closed = await closedPeriodAt(tx, workspaceId, date);
    if (closed) throw conflict(`${date} is in the closed accounting period "${closed.name}"`);
  }
}
