import { QueryTypes } from 'sequelize';
import { db, transaction } from '../../../db/database.js';
import { clock } from '../../../lib/clock.js';
import { badRequest, conflict, notFound } from '../../../lib/errors.js';
import { scope, type Actor } from '../../../lib/scope.js';
import type { ListReviewsQuery, ReviewObject } from '../../../../shared/contracts/accounting.js';
import { ledger, loadEntry, lockEntry } from '../../entries/index.js';
import { byUser } from '../../entries/index.js';
import { coversProject, loadConnection, lockConnection } from '../connections/connection-rows.js';
import { intArrayLiteral } from '../pg-arrays.js';
import { queuedEffects } from './review-queue.js';
import { loadReview, presentReview, presentReviews, type ReviewRow } from './review-rows.js';

type Page<T> = { items: T[]; total: number; limit: number; offset: number };

/**
 * A review queued by hand. The entry is locked first (the lock order of every review
 * operation: entry, then review), then the open-review rule is checked: a second QUEUED or
 * IN_REVIEW review for the same (entry, connection) is a 409, backed by a unique index.
 */
export async function createReview(actor: Actor, input: { entryId: number; connectionId?: string | null }): Promise<ReviewObject> {
  return transaction(async (tx) => {
    const entry = await lockEntry(null, input.entryId, tx);
    if (!scope.canSeeWorkspaceObject(actor, entry.workspace_id)) throw notFound('Entry');
    if (entry.entry_status === 'VOIDED') throw conflict('A VOIDED entry gets no review');
    const connectionId = input.connectionId ?? null;
    if (connectionId) {
      const connection = await loadConnection(actor, connectionId, tx);
      if (connection.workspace_id !== entry.workspace_id) throw badRequest("The connection belongs to another workspace than the entry's");
      if (!connection.is_active) throw conflict('The connection is inactive and takes no reviews');
      if (!coversProject(connection, entry.project_id)) throw conflict("The connection does not route the entry's project");
    }
    const open = await db().query(
      `SELECT 1 FROM accounting_reviews
        WHERE entry_id = :entryId AND connection_id IS NOT DISTINCT FROM CAST(:connectionId AS uuid) AND status IN ('QUEUED', 'IN_REVIEW')`,
      { replacements: { entryId: entry.id, connectionId }, type: QueryTypes.SELECT, transaction: tx },
    );
    if (open.length) throw conflict('The entry already has an open (QUEUED or IN_REVIEW) review for this connection');
    const now = clock.now();
    const [review] = await db().query<ReviewRow>(
      `INSERT INTO accounting_reviews (workspace_id, entry_id, connection_id, status, created_at, updated_at)
       VALUES (:ws, :entryId, :connectionId, 'QUEUED', :now, :now) RETURNING *`,
      { replacements: { ws: entry.workspace_id, entryId: entry.id, connectionId, now }, type: QueryTypes.SELECT, transaction: tx },
    );
    await ledger.apply(tx, queuedEffects([review]), byUser(actor));
    return presentReview(review, await loadEntry(null, entry.id, tx));
  });
}

export async function getReview(actor: Actor, id: string): Promise<ReviewObject> {
  const [review] = await presentReviews([await loadReview(actor, id)]);
  return review;
}

/** Paged, newest first; needs `workspaceId` (403 when not a member) or `connectionId` (404 when not visible). */
export async function listReviews(actor: Actor, q: ListReviewsQuery): Promise<Page<ReviewObject>> {
  if (q.workspaceId === undefined && q.connectionId === undefined) throw badRequest('workspaceId or connectionId is required');
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if (q.workspaceId !== undefined) {
    scope.requireWorkspaceMember(actor, q.workspaceId);
    where.push('workspace_id = :ws');
    params.ws = q.workspaceId;
  }
  if (q.connectionId !== undefined) {
    const connection = await loadConnection(actor, q.connectionId);
    where.push('workspace_id = :connectionWs', 'connection_id = :connectionId');
    params.connectionWs = connection.workspace_id;
    params.connectionId = q.connectionId;
  }
  if (q.status) {
    where.push('status = :status');
    params.status = q.status;
  }
  if (q.reviewerId) {
    where.push('reviewer_id = :reviewerId');
    params.reviewerId = q.reviewerId;
  }
  if (q.entryId) {
    where.push('entry_id = :entryId');
    params.entryId = q.entryId;
  }
  const clause = where.join(' AND ');
  const [rows, [{ total }]] = await Promise.all([
    db().query<ReviewRow>(
      `SELECT * FROM accounting_reviews WHERE ${clause} ORDER BY created_at DESC, id DESC LIMIT :limit OFFSET :offset`,
      {
        replacements: { ...params, limit: q.limit, offset: q.offset },
        type: QueryTypes.SELECT,
      },
    ),
    db().query<{ total: number }>(`SELECT count(*)::int AS total FROM accounting_reviews WHERE ${clause}`, {
      replacements: params,
      type: QueryTypes.SELECT,
    }),
  ]);
  return { items: await presentReviews(rows), total, limit: q.limit, offset: q.offset };
}

/**
 * Queues one review per non-voided entry of the connection's projects that has no review for
 * this connection yet (so a second call queues nothing). The connection row is locked, so two
 * backfills of one connection run one after the other; the entries are locked before their reviews.
 */
export async function backfillReviews(actor: Actor, connectionId: string): Promise<{ queued: number }> {
  return transaction(async (tx) => {
    const connection = await lockConnection(actor, connectionId, tx);
    if (!connection.is_active) throw conflict('The connection is inactive and takes no reviews');
    const params = { ws: connection.workspace_id, connectionId, projects: intArrayLiteral(connection.project_ids) };
    const candidates = await db().query<{ id: number }>(
      `SELECT e.id FROM entries e
        WHERE e.workspace_id = :ws AND e.entry_status <> 'VOIDED'
          AND (cardinality(CAST(:projects AS int[])) = 0 OR e.project_id = ANY (CAST(:projects AS int[])))
          AND NOT EXISTS (SELECT 1 FROM accounting_reviews r WHERE r.workspace_id = e.workspace_id AND r.entry_id = e.id AND r.connection_id = :connectionId)
        ORDER BY e.id`,
      { replacements: params, type: QueryTypes.SELECT, transaction: tx },
    );
    if (candidates.length === 0) return { queued: 0 };
    // locked through the ledger core; the insert reads them again after the lock (a status committed meanwhile)
    await ledger.lockMany(
      tx,
      candidates.map((c) => c.id),
    );
    const now = clock.now();
    const reviews = await db().query<ReviewRow>(
      `INSERT INTO accounting_reviews (workspace_id, entry_id, connection_id, status, created_at, updated_at)
       SELECT :ws, e.id, :connectionId, 'QUEUED', :now, :now
         FROM entries e
        WHERE e.workspace_id = :ws AND e.id = ANY (CAST(:ids AS bigint[])) AND e.entry_status <> 'VOIDED'
        ORDER BY e.id
       ON CONFLICT DO NOTHING
       RETURNING *`,
      { replacements: { ...params, ids: intArrayLiteral(candidates.map((c) => c.id)), now }, type: QueryTypes.SELECT, transaction: tx },
    );
    await ledger.apply(tx, queuedEffects(reviews, { backfill: true }), byUser(actor));
    return { queued: reviews.length };
  });
}
