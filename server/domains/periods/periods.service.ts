import { lockById } from '../../db/distributed.js';
import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import { iso } from '../../lib/dates.js';
import { conflict, notFound } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { PeriodObject } from '../../../shared/contracts/periods.js';
import { publish } from '../outbound-webhooks/index.js';
import { lockPeriodsExclusive } from './period-lock.js';

type Row = {
  id: string;
  workspace_id: number;
  name: string;
  start_date: string;
  end_date: string;
  status: 'OPEN' | 'CLOSED';
  closed_at: Date | null;
  closed_by: string | null;
  created_at: Date;
};

const present = (r: Row): PeriodObject => ({
  id: r.id,
  workspaceId: r.workspace_id,
  name: r.name,
  startDate: r.start_date,
  endDate: r.end_date,
  status: r.status,
  closedAt: iso(r.closed_at),
  closedBy: r.closed_by,
  createdAt: r.created_at.toISOString(),
});

async function load(actor: Actor, id: string, tx?: Transaction, forUpdate = false): Promise<Row> {
  const rows = await db().query<Row>(
    `SELECT * FROM accounting_periods WHERE id = :id${forUpdate ? await lockById('accounting_periods', id, tx, 'FOR UPDATE') : ''}`,
    {
      replacements: { id },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  const row = rows[0];
  if (!row || !scope.canSeeWorkspaceObject(actor, row.workspace_id)) throw notFound('Accounting period');
  return row;
}

export async function listPeriods(actor: Actor, workspaceId: number): Promise<PeriodObject[]> {
  scope.requireWorkspaceMember(actor, workspaceId);
  const rows = await db().query<Row>('SELECT * FROM accounting_periods WHERE workspace_id = :ws ORDER BY start_date, id', {
    replacements: { ws: workspaceId },
    type: QueryTypes.SELECT,
  });
  return rows.map(present);
}

export const getPeriod = async (actor: Actor, id: string) => present(await load(actor, id));

export async function createPeriod(actor: Actor, input: { workspaceId: number; name: string; startDate: string; endDate: string }) {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  return transaction(async (tx) => {
    await lockPeriodsExclusive(tx, input.workspaceId);
    const overlapping = await db().query(
      `SELECT 1 FROM accounting_periods WHERE workspace_id = :ws AND start_date <= :end AND end_date >= :start LIMIT 1`,
      { replacements: { ws: input.workspaceId, start: input.startDate, end: input.endDate }, type: QueryTypes.SELECT, transaction: tx },
    );
    if (overlapping.length) throw conflict('The period overlaps an existing period of this workspace');
    const [row] = await db().query<Row>(
      `INSERT INTO accounting_periods (workspace_id, name, start_date, end_date, created_at, updated_at)
       VALUES (:ws, :name, :start, :end, :now, :now) RETURNING *`,
      {
        replacements: { ws: input.workspaceId, name: input.name, start: input.startDate, end: input.endDate, now: clock.now() },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    return present(row);
  });
}

async function setStatus(actor: Actor, id: string, from: 'OPEN' | 'CLOSED', to: 'OPEN' | 'CLOSED'): Promise<PeriodObject> {
  return transaction(async (tx) => {
    const current = await load(actor, id, tx);
    await lockPeriodsExclusive(tx, current.workspace_id);
    const row = await load(actor, id, tx, true);
    if (row.status !== from)
      throw conflict(`The period is ${row.status}; only a ${from} period can be ${to === 'CLOSED' ? 'closed' : 'reopened'}`);
    const closing = to === 'CLOSED';
    const [updated] = await db().query<Row>(
      `UPDATE accounting_periods SET status = :to, closed_at = :closedAt, closed_by = :closedBy, updated_at = :now
        WHERE id = :id RETURNING *`,
      {
        replacements: { id, to, closedAt: closing ? clock.now() : null, closedBy: closing ? actor.userId : null, now: clock.now() },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    await publish(tx, { workspaceId: updated.workspace_id, type: closing ? 'period.closed' : 'period.reopened', object: present(updated) });
    return present(updated);
  });
}

export const closePeriod = (actor: Actor, id: string) => setStatus(actor, id, 'OPEN', 'CLOSED');
export const reopenPeriod = (actor: Actor, id: string) => setStatus(actor, id, 'CLOSED', 'OPEN');

export async function deletePeriod(actor: Actor, id: string): Promise<{ success: true }> {
  return transaction(async (tx) => {
    const current = await load(actor, id, tx);
    await lockPeriodsExclusive(tx, current.workspace_id);
    const row = await load(actor, id, tx, true);
    if (row.status !== 'OPEN') throw conflict('Only an OPEN period can be deleted');
    await db().query('DELETE FROM accounting_periods WHERE id = :id', { replacements: { id }, transaction: tx });
    return { success: true as const };
  });
}
