import { QueryTypes } from 'sequelize';
import { db } from '../../db/database.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { ListWebhookEventsQuery, WebhookEventObject, WebhookEventType } from '../../../shared/contracts/outbound-webhooks.js';

type EventRow = { id: string; type: WebhookEventType; workspace_id: number; created_at: Date; data: Record<string, unknown> };

/**
 * GET /webhook-events (CONTRACT §15): the workspace's events, oldest first, for consumers that
 * poll or catch up. Test events (sent to one endpoint on request) are not part of the feed.
 */
export async function listEvents(actor: Actor, q: ListWebhookEventsQuery) {
  scope.requireWorkspaceMember(actor, q.workspaceId);
  const filters = ['workspace_id = :ws', "type <> 'webhook.test'"];
  if (q.type) filters.push('type = :type');
  if (q.since) filters.push('created_at >= :since');
  const where = filters.join(' AND ');
  const replacements = { ws: q.workspaceId, type: q.type, since: q.since ? new Date(q.since) : null, limit: q.limit, offset: q.offset };
  const [rows, [{ total }]] = await Promise.all([
    db().query<EventRow>(
      `SELECT id, type, workspace_id, created_at, data FROM webhook_events WHERE ${where}
        ORDER BY created_at, seq LIMIT :limit OFFSET :offset`,
      { replacements, type: QueryTypes.SELECT },
    ),
    db().query<{ total: number }>(`SELECT count(*)::int AS total FROM webhook_events WHERE ${where}`, {
      replacements,
      type: QueryTypes.SELECT,
    }),
  ]);
  const items: WebhookEventObject[] = rows.map((r) => ({
    id: r.id,
    type: r.type,
    workspaceId: r.workspace_id,
    createdAt: r.created_at.toISOString(),
    data: r.data,
  }));
  return { items, total, limit: q.limit, offset: q.offset };
}
