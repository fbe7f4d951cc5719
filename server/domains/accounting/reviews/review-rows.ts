import { lockById } from '../../../db/distributed.js';
import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';
import { updateTenantRow } from '../../../db/update-row.js';
import { iso } from '../../../lib/dates.js';
import { notFound } from '../../../lib/errors.js';
import { scope, type Actor } from '../../../lib/scope.js';
import type { ReviewObject, ReviewStatus } from '../../../../shared/contracts/accounting.js';
import { presentEntry, type EntryRow } from '../../entries/index.js';

export type ReviewRow = {
  id: string;
  workspace_id: number;
  entry_id: number;
  connection_id: string | null;
  status: ReviewStatus;
  reviewer_id: string | null;
  notes: string | null;
  category_id: string | null;
  decided_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

export const OPEN_STATUSES: readonly ReviewStatus[] = ['QUEUED', 'IN_REVIEW'];

/** The review as the contract shows it (CONTRACT §8), with its entry embedded. */
export const presentReview = (r: ReviewRow, entry: EntryRow): ReviewObject => ({
  id: r.id,
  entryId: r.entry_id,
  connectionId: r.connection_id,
  status: r.status,
  reviewerId: r.reviewer_id,
  notes: r.notes,
  categoryId: r.category_id,
  decidedAt: iso(r.decided_at),
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
  entry: presentEntry(entry),
});

export async function findReview(id: string, tx?: Transaction, forUpdate = false): Promise<ReviewRow | undefined> {
  const rows = await db().query<ReviewRow>(
    `SELECT * FROM accounting_reviews WHERE id = :id${forUpdate ? await lockById('accounting_reviews', id, tx, 'FOR UPDATE') : ''}`,
    {
      replacements: { id },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  return rows[0];
}

/** A review of a workspace the actor is a member of, or 404 (reviews are workspace-level resources). */
export async function loadReview(actor: Actor, id: string, tx?: Transaction, forUpdate = false): Promise<ReviewRow> {
  const row = await findReview(id, tx, forUpdate);
  if (!row || !scope.canSeeWorkspaceObject(actor, row.workspace_id)) throw notFound('Review');
  return row;
}

/** The entries of some reviews, in one query. */
export async function entriesById(ids: number[], tx?: Transaction): Promise<Map<number, EntryRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db().query<EntryRow>('SELECT * FROM entries WHERE id IN (:ids)', {
    replacements: { ids: [...new Set(ids)] },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return new Map(rows.map((e) => [Number(e.id), e]));
}

export async function presentReviews(rows: ReviewRow[], tx?: Transaction): Promise<ReviewObject[]> {
  const entries = await entriesById(
    rows.map((r) => Number(r.entry_id)),
    tx,
  );
  return rows.map((r) => presentReview(r, entries.get(Number(r.entry_id))!));
}

/** Column → value changes of one review, applied with one UPDATE that also sets updated_at. */
export const updateReviewRow = (
  tx: Transaction,
  key: Pick<ReviewRow, 'id' | 'workspace_id'>,
  changes: Record<string, unknown>,
  now: Date,
) => updateTenantRow<ReviewRow>(tx, 'accounting_reviews', key, changes, now);
