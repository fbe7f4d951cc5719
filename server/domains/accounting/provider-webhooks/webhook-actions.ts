import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../../db/database.js';
import { clock } from '../../../lib/clock.js';
import { badRequest, notFound } from '../../../lib/errors.js';
import type { WebhookBody } from '../../../../shared/contracts/sync.js';
import { requestDocumentInTransaction } from '../../documents/index.js';
import { isFrozen, ledger, loadEntry, lockEntry, type EntryRow, type EventActor } from '../../entries/index.js';
import { coversProject, type ConnectionRow } from '../connections/connection-rows.js';

export type WebhookOutcome = { received: true; action: WebhookBody['action']; entryId: number } | { received: true; duplicate: true };

/**
 * The actions of CONTRACT §10 after the checks passed, in one transaction with the eventId that
 * guards against replays: a repeated eventId on the connection is acknowledged as a duplicate and
 * does nothing (two deliveries racing: the second waits on the first's row and then sees it). An
 * action that is refused (404, 409) records nothing, so the provider may deliver it again.
 * Events carry actorType WEBHOOK and the connection id as actorId.
 */
export async function handleWebhook(connection: ConnectionRow, body: WebhookBody): Promise<WebhookOutcome> {
  const who: EventActor = { actorType: 'WEBHOOK', actorId: connection.id };
  return transaction(async (tx) => {
    if (await seenBefore(tx, connection.id, body.eventId)) return { received: true, duplicate: true };
    const named = await namedEntry(tx, connection, body);
    if (!(await claimEvent(tx, connection, body, named.id))) return { received: true, duplicate: true };
    const entry = await lockEntry(null, named.id, tx);
    await ledger.recordEvent(
      tx,
      entry,
      'WEBHOOK_RECEIVED',
      { eventId: body.eventId, action: body.action, connectionId: connection.id },
      who,
    );
    await act(tx, entry, body, who);
    return { received: true, action: body.action, entryId: entry.id };
  });
}

async function seenBefore(tx: Transaction, connectionId: string, eventId: string): Promise<boolean> {
  const rows = await db().query('SELECT 1 FROM accounting_webhook_events WHERE connection_id = :connectionId AND event_id = :eventId', {
    replacements: { connectionId, eventId },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return rows.length > 0;
}

async function claimEvent(tx: Transaction, connection: ConnectionRow, body: WebhookBody, entryId: number): Promise<boolean> {
  const rows = await db().query(
    `INSERT INTO accounting_webhook_events (connection_id, event_id, workspace_id, action, entry_id, received_at)
     VALUES (:connectionId, :eventId, :ws, :action, :entryId, :now)
     ON CONFLICT ON CONSTRAINT accounting_webhook_events_pkey DO NOTHING RETURNING event_id`,
    {
      replacements: {
        connectionId: connection.id,
        eventId: body.eventId,
        ws: connection.workspace_id,
        action: body.action,
        entryId,
        now: clock.now(),
      },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  return rows.length === 1;
}

/**
 * The entry named by `entryId`, or by the `externalId` of its sync record on this connection; of the
 * connection's workspace and, when the connection has `projectIds`, of one of those projects (else 404).
 */
async function namedEntry(tx: Transaction, connection: ConnectionRow, body: WebhookBody): Promise<EntryRow> {
  let byExternal: number | null = null;
  if (body.externalId !== undefined) {
    const [sync] = await db().query<{ entry_id: number }>(
      'SELECT entry_id FROM accounting_syncs WHERE connection_id = :connectionId AND external_id = :externalId',
      { replacements: { connectionId: connection.id, externalId: body.externalId }, type: QueryTypes.SELECT, transaction: tx },
    );
    if (!sync) throw notFound('Entry');
    byExternal = sync.entry_id;
  }
  const id = body.entryId ?? byExternal;
  if (id === null) throw badRequest('The webhook must name the entry by entryId or externalId');
  if (body.entryId !== undefined && byExternal !== null && byExternal !== body.entryId) {
    throw badRequest('entryId and externalId name different entries');
  }
  const entry = await loadEntry(null, id, tx);
  if (entry.workspace_id !== connection.workspace_id || !coversProject(connection, entry.project_id)) throw notFound('Entry');
  return entry;
}

/** Status changes by webhook follow the WEBHOOK rows of the status table: any status moves but VOIDED and CANCELLED (409). */
async function act(tx: Transaction, entry: EntryRow, body: WebhookBody, who: EventActor): Promise<void> {
  const move = (to: 'COMPLETED' | 'REJECTED' | 'VOIDED', reason: string | null) => ledger.setStatus(tx, entry, to, reason, who, 'WEBHOOK');
  switch (body.action) {
    case 'ENTRY_APPROVED':
      if (entry.entry_status !== 'COMPLETED' || isFrozen(entry.entry_status)) await move('COMPLETED', body.reason ?? null);
      return;
    case 'ENTRY_REJECTED':
      if (entry.entry_status !== 'REJECTED' || isFrozen(entry.entry_status)) {
        await move('REJECTED', body.reason ?? 'Rejected in the accounting system');
      }
      return;
    case 'ENTRY_VOIDED':
      await move('VOIDED', body.reason ?? 'Voided in the accounting system');
      return;
    case 'DOCUMENT_REQUESTED':
      if (!body.documentName) throw badRequest('DOCUMENT_REQUESTED needs documentName');
      await requestDocumentInTransaction(
        tx,
        entry,
        { documentName: body.documentName, documentType: body.documentType ?? 'BASIS', comment: body.comment ?? null },
        who,
      );
      return;
    case 'ENTRY_UPDATED':
      await ledger.recordEvent(tx, entry, 'ENTRY_UPDATED', { changes: body.changes ?? {}, source: 'WEBHOOK', eventId: body.eventId }, who);
      return;
  }
}
