import { lockById } from '../../db/distributed.js';
import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { notFound } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { RecurringEntryObject, RecurringTemplate } from '../../../shared/contracts/recurring.js';

export type RecurringRow = {
  id: string;
  workspace_id: number;
  project_id: number;
  template: RecurringTemplate;
  rrule: string;
  start_date: string;
  end_date: string | null;
  is_active: boolean;
  next_occurrence: string | null;
  created_by: string | null;
  api_key_id: string | null;
  created_at: Date;
  updated_at: Date;
};

/** The recurring entry as the contract shows it (CONTRACT §25). */
export const presentRecurring = (r: RecurringRow): RecurringEntryObject => ({
  id: r.id,
  workspaceId: r.workspace_id,
  projectId: r.project_id,
  template: r.template,
  rrule: r.rrule,
  startDate: r.start_date,
  endDate: r.end_date,
  isActive: r.is_active,
  nextOccurrence: r.is_active ? r.next_occurrence : null,
  createdBy: r.created_by,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

/** The row by id (locked as `lock` says), or undefined. */
export async function recurringRow(
  tx: Transaction | undefined,
  id: string,
  lock: '' | 'FOR UPDATE' | 'FOR UPDATE SKIP LOCKED' = '',
): Promise<RecurringRow | undefined> {
  const [row] = await db().query<RecurringRow>(
    `SELECT * FROM recurring_entries WHERE id = :id${lock ? await lockById('recurring_entries', id, tx, lock) : ''}`,
    {
      replacements: { id },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  return row;
}

/** The recurring entry the actor may see (its project's scope, as an entry's), or 404. */
export async function loadRecurring(actor: Actor, id: string, tx?: Transaction, lock = false): Promise<RecurringRow> {
  const row = await recurringRow(tx, id, lock ? 'FOR UPDATE' : '');
  if (!row || !scope.canSeeProjectObject(actor, row.workspace_id, row.project_id)) throw notFound('Recurring entry');
  return row;
}
