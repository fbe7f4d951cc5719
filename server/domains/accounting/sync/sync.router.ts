import { z } from 'zod/v4';
import { Page } from '../../../../shared/contracts/common.js';
import {
  ConnectionBody,
  EntrySyncsInput,
  ImportResult,
  ListSyncsQuery,
  PendingSyncsInput,
  PullInput,
  PullResult,
  PushInput,
  PushResult,
  ResolveConflictInput,
  RetryBatchInput,
  RetryBatchResult,
  RetryResult,
  SyncIdInput,
  SyncListRow,
  SyncObject,
} from '../../../../shared/contracts/sync.js';
import { router } from '../../../trpc/init.js';
import { op, permitted } from '../../../trpc/procedures.js';
import * as sync from './sync.service.js';

const TAG = 'Accounting sync';
const can = permitted('accounting.manage');

export const syncRouter = router({
  push: can
    .meta(
      op('POST', '/accounting/sync/push', 'pushEntry', TAG, 'Push an entry to a connection', [403, 404, 409], {
        description:
          'Creates the external record, or updates it when the sync is STALE/FAILED with an external record. Returns the sync ' +
          'record: SYNCED, or FAILED with lastError when the provider failed (network, timeout, 4xx, 5xx after two retries). ' +
          'A SYNCED entry that has not changed is a no-op. 409 with nothing changed: excludeFromSync, incomplete entry when ' +
          'the connection requires completeness, date in a closed period, connection inactive or not covering the project, ' +
          'requireReview without an APPROVED review, VOIDED entry never synced, record in CONFLICT. 400: the provider host ' +
          'is refused by the SSRF guard. `dryRun: true` returns the exact request it would send, sending nothing.',
      }),
    )
    .input(PushInput)
    .output(PushResult)
    .mutation(({ ctx, input }) => sync.push(ctx.actor, input)),
  pull: can
    .meta(
      op('POST', '/accounting/sync/pull', 'pullChanges', TAG, 'Pull external changes since a timestamp', [403, 404, 409], {
        description:
          "`since` defaults to the connection's lastPulledAt. External changes update SYNCED entries (event ENTRY_UPDATED, actor " +
          'SYSTEM) and turn STALE ones into CONFLICT. 409: connection inactive, or the provider failed.',
      }),
    )
    .input(PullInput)
    .output(PullResult)
    .mutation(({ ctx, input }) => sync.pull(ctx.actor, input)),
  pullChartOfAccounts: can
    .meta(
      op(
        'POST',
        '/accounting/sync/pull-chart-of-accounts',
        'pullChartOfAccounts',
        TAG,
        'Import external accounts as categories',
        [403, 404, 409],
      ),
    )
    .input(ConnectionBody)
    .output(ImportResult)
    .mutation(({ ctx, input }) => sync.pullChartOfAccounts(ctx.actor, input)),
  pullParties: can
    .meta(op('POST', '/accounting/sync/pull-parties', 'pullParties', TAG, 'Import external parties with party mappings', [403, 404, 409]))
    .input(ConnectionBody)
    .output(ImportResult)
    .mutation(({ ctx, input }) => sync.pullParties(ctx.actor, input)),
  resolveConflict: can
    .meta(op('POST', '/accounting/sync/resolve-conflict', 'resolveSyncConflict', TAG, 'Resolve a sync record in CONFLICT', [403, 404, 409]))
    .input(ResolveConflictInput)
    .output(SyncObject)
    .mutation(({ ctx, input }) => sync.resolveConflict(ctx.actor, input)),
  entry: can
    .meta(op('GET', '/accounting/sync/entry/{entryId}', 'getEntrySyncs', TAG, "An entry's sync records", [403, 404]))
    .input(EntrySyncsInput)
    .output(z.array(SyncObject))
    .query(({ ctx, input }) => sync.entrySyncs(ctx.actor, input.entryId)),
  pending: can
    .meta(op('GET', '/accounting/sync/pending/{connectionId}', 'listPendingSyncs', TAG, "A connection's PENDING sync records", [403, 404]))
    .input(PendingSyncsInput)
    .output(z.array(SyncObject))
    .query(({ ctx, input }) => sync.pendingSyncs(ctx.actor, input.connectionId)),
  list: can
    .meta(op('GET', '/accounting/syncs', 'listSyncs', TAG, 'Sync records of a workspace with connection and entry context', [403]))
    .input(ListSyncsQuery)
    .output(Page(SyncListRow))
    .query(({ ctx, input }) => sync.listSyncs(ctx.actor, input)),
  retryBatch: can
    .meta(op('POST', '/accounting/syncs/retry-batch', 'retrySyncBatch', TAG, 'Retry up to 100 sync records', [403]))
    .input(RetryBatchInput)
    .output(RetryBatchResult)
    .mutation(({ ctx, input }) => sync.retryBatch(ctx.actor, input)),
  retry: can
    .meta(
      op('POST', '/accounting/syncs/{id}/retry', 'retrySync', TAG, 'Retry a FAILED, STALE or CONFLICT sync record', [403, 404, 409], {
        description:
          'FAILED and STALE push again; CONFLICT re-reads the external record and pushes only when it is unchanged since the ' +
          'last sync (else it stays CONFLICT and success is false). success: the record ended SYNCED.',
      }),
    )
    .input(SyncIdInput)
    .output(RetryResult)
    .mutation(({ ctx, input }) => sync.retry(ctx.actor, input.id)),
});
