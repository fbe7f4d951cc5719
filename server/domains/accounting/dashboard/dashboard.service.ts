import { QueryTypes } from 'sequelize';
import { db } from '../../../db/database.js';
import { scope, type Actor } from '../../../lib/scope.js';
import type { Dashboard, ExceptionSummary } from '../../../../shared/contracts/accounting.js';
import { listConnectionRows, presentConnection } from '../connections/connection-rows.js';

type Counts = ExceptionSummary & {
  queued: number;
  inReview: number;
  approved: number;
  pendingSyncs: number;
  syncedSyncs: number;
};

/**
 * Every counter of the dashboard and the exception summary in one statement, each table
 * scanned once through its workspace index; nothing is loaded row by row.
 */
async function countWorkspace(workspaceId: number): Promise<Counts> {
  const [row] = await db().query<Counts>(
    `WITH r AS (
       SELECT count(*) FILTER (WHERE status = 'QUEUED')::int            AS "queued",
              count(*) FILTER (WHERE status = 'IN_REVIEW')::int         AS "inReview",
              count(*) FILTER (WHERE status = 'APPROVED')::int          AS "approved",
              count(*) FILTER (WHERE status = 'REJECTED')::int          AS "rejectedReviews",
              count(*) FILTER (WHERE status = 'CHANGES_REQUESTED')::int AS "changesRequestedReviews"
         FROM accounting_reviews WHERE workspace_id = :ws
     ), s AS (
       SELECT count(*) FILTER (WHERE status = 'PENDING')::int  AS "pendingSyncs",
              count(*) FILTER (WHERE status = 'SYNCED')::int   AS "syncedSyncs",
              count(*) FILTER (WHERE status = 'FAILED')::int   AS "failedSyncs",
              count(*) FILTER (WHERE status = 'STALE')::int    AS "staleSyncs",
              count(*) FILTER (WHERE status = 'CONFLICT')::int AS "conflictingSyncs"
         FROM accounting_syncs WHERE workspace_id = :ws
     ), e AS (
       SELECT count(*)::int AS "unreconciledEntries"
         FROM entries WHERE workspace_id = :ws AND NOT is_reconciled AND entry_status NOT IN ('VOIDED', 'CANCELLED')
     ), d AS (
       SELECT count(*)::int AS "requestedDocuments" FROM entry_documents WHERE workspace_id = :ws AND status = 'REQUESTED'
     )
     SELECT * FROM r, s, e, d`,
    { replacements: { ws: workspaceId }, type: QueryTypes.SELECT },
  );
  return row;
}

const summaryOf = (c: Counts): ExceptionSummary => ({
  failedSyncs: c.failedSyncs,
  staleSyncs: c.staleSyncs,
  conflictingSyncs: c.conflictingSyncs,
  unreconciledEntries: c.unreconciledEntries,
  requestedDocuments: c.requestedDocuments,
  rejectedReviews: c.rejectedReviews,
  changesRequestedReviews: c.changesRequestedReviews,
});

/** Workspace-level: any member of the workspace (403 otherwise), no particular permission. */
export async function exceptionSummary(actor: Actor, workspaceId: number): Promise<ExceptionSummary> {
  scope.requireWorkspaceMember(actor, workspaceId);
  return summaryOf(await countWorkspace(workspaceId));
}

export async function dashboard(actor: Actor, workspaceId: number): Promise<Dashboard> {
  scope.requireWorkspaceMember(actor, workspaceId);
  const [c, connections] = await Promise.all([countWorkspace(workspaceId), listConnectionRows(workspaceId)]);
  return {
    reviewStats: {
      queued: c.queued,
      inReview: c.inReview,
      approved: c.approved,
      rejected: c.rejectedReviews,
      changesRequested: c.changesRequestedReviews,
    },
    syncStats: { pending: c.pendingSyncs, synced: c.syncedSyncs, failed: c.failedSyncs, stale: c.staleSyncs, conflict: c.conflictingSyncs },
    connections: connections.map(presentConnection),
    exceptionSummary: summaryOf(c),
  };
}
