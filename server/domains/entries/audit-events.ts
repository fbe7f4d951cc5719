import { createHash, randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { onCitus } from '../../db/distributed.js';
import { clock } from '../../lib/clock.js';
import { currentVia } from '../../lib/via.js';
import type { Actor } from '../../lib/scope.js';
import type { EventObject } from '../../../shared/contracts/entries.js';
import { preparedQuery } from '../../db/prepared.js';

export type EventActor = { actorType: 'USER' | 'INTEGRATION' | 'WEBHOOK' | 'SYSTEM' | 'API_KEY'; actorId: string | null };
/** The person, or the app's API key (CONTRACT §19), behind a request. */
export const byUser = (actor: Actor): EventActor =>
  actor.apiKeyId ? { actorType: 'API_KEY', actorId: actor.apiKeyId } : { actorType: 'USER', actorId: actor.userId };
export const SYSTEM: EventActor = { actorType: 'SYSTEM', actorId: null };

export type EventKind =
  | 'ENTRY_CREATED'
  | 'ENTRY_UPDATED'
  | 'STATUS_CHANGED'
  | 'VOIDED'
  | 'REFUND_CREATED'
  | 'REIMBURSEMENT_CREATED'
  | 'CORRECTION_CREATED'
  | 'RECONCILED'
  | 'UNRECONCILED'
  | 'TAGS_CHANGED'
  | 'NOTE_ADDED'
  | 'DOCUMENT_UPLOADED'
  | 'DOCUMENT_REQUESTED'
  | 'DOCUMENT_FULFILLED'
  | 'DOCUMENT_APPROVED'
  | 'DOCUMENT_REJECTED'
  | 'REVIEW_QUEUED'
  | 'REVIEW_ASSIGNED'
  | 'REVIEW_APPROVED'
  | 'REVIEW_REJECTED'
  | 'REVIEW_CHANGES_REQUESTED'
  | 'SYNC_PUSHED'
  | 'SYNC_FAILED'
  | 'SYNC_STALE'
  | 'SYNC_CONFLICT'
  | 'SYNC_RESOLVED'
  | 'WEBHOOK_RECEIVED'
  | 'REVIEW_CANCELLED'
  | 'RULE_APPLIED'
  | 'FX_REVALUED';

type EventRow = {
  id: string;
  entry_id: number;
  seq: number;
  kind: string;
  actor_type: EventActor['actorType'];
  actor_id: string | null;
  data: Record<string, unknown>;
  created_at: Date;
  prev_hash: string | null;
  hash: string;
};

/**
 * JSON with object keys sorted at every level, so the same event always hashes the same. Every event of every
 * write passes through it: one string built in place, no intermediate arrays (the hashes of stored chains depend
 * on its exact output; tests/entries/canonical-json.test.ts holds it).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + canonicalJson(value[i]);
    return out + ']';
  }
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    let out = '{';
    for (const key of Object.keys(obj).sort()) {
      const field = obj[key];
      if (field === undefined) continue;
      out += (out.length > 1 ? ',' : '') + JSON.stringify(key) + ':' + canonicalJson(field);
    }
    return out + '}';
  }
  return JSON.stringify(value ?? null);
}

/** What an event's hash covers besides the previous hash. */
function eventBody(e: Omit<EventObject, 'prevHash' | 'hash'>): string {
  return canonicalJson({
    id: e.id,
    entryId: e.entryId,
    kind: e.kind,
    actorType: e.actorType,
    actorId: e.actorId,
    data: e.data,
    createdAt: e.createdAt,
  });
}

function hashEvent(prevHash: string | null, e: Omit<EventObject, 'prevHash' | 'hash'>): string {
  const body = eventBody(e);
  return createHash('sha256')
    .update(`${prevHash ?? ''}\n${body}`)
    .digest('hex');
}

/**
 * Appends an event to the entry's hash chain inside the caller's transaction. The entry
 * row is locked first so that concurrent writers chain one after the other.
 */
export function recordEvent(
  tx: Transaction,
  entry: { id: number; workspace_id: number },
  kind: EventKind,
  data: Record<string, unknown>,
  actor: EventActor,
): Promise<void> {
  return recordEvents(tx, [{ entry, kind, data }], actor);
}

export type EventInsertRow = {
  id: string;
  entry_id: number;
  workspace_id: number;
  seq: number;
  kind: EventKind;
  actor_type: EventActor['actorType'];
  actor_id: string | null;
  data: Record<string, unknown>;
  created_at: string;
  prev_hash: string | null;
  hash: string;
};

/** A new event of `entry` as its hash covers it: a fresh id, the data as JSON would carry it. */
function newEvent(entry: { id: number }, kind: EventKind, data: Record<string, unknown>, actor: EventActor, createdAt: string) {
  return {
    id: randomUUID(),
    entryId: entry.id,
    kind,
    actorType: actor.actorType,
    actorId: actor.actorId,
    data: JSON.parse(JSON.stringify(markVia(data, actor))) as Record<string, unknown>,
    createdAt,
  };
}

/** The caller's own events name the transport when it is not the usual one (MCP); system reactions do not. */
function markVia(data: Record<string, unknown>, actor: EventActor): Record<string, unknown> {
  const via = currentVia();
  return via && actor.actorType !== 'SYSTEM' ? { ...data, via } : data;
}

/** The next link of a chain whose last event is `tail` (none for a new entry). */
export function chainedEvent(
  tail: { seq: number | null; hash: string | null } | undefined,
  entry: { id: number; workspace_id: number },
  kind: EventKind,
  data: Record<string, unknown>,
  actor: EventActor,
  createdAt: string,
): EventInsertRow {
  const event = newEvent(entry, kind, data, actor, createdAt);
  const prevHash = tail?.hash ?? null;
  return {
    id: event.id,
    entry_id: entry.id,
    workspace_id: entry.workspace_id,
    seq: (tail?.seq ?? 0) + 1,
    kind,
    actor_type: actor.actorType,
    actor_id: actor.actorId,
    data: event.data,
    created_at: createdAt,
    prev_hash: prevHash,
    hash: hashEvent(prevHash, event),
  };
}

/** INSERT … SELECT of EventInsertRow objects passed as a JSON array in parameter `param`. */
export const insertEventsSql = (param: string) =>
  `INSERT INTO entry_events (id, entry_id, workspace_id, seq, kind, actor_type, actor_id, data, created_at, prev_hash, hash)
   SELECT r.id, r.entry_id, r.workspace_id, r.seq, r.kind, r.actor_type, r.actor_id, r.data, r.created_at, r.prev_hash, r.hash
     FROM jsonb_to_recordset(${param}::jsonb) AS r(id uuid, entry_id bigint, workspace_id int, seq int, kind text,
          actor_type text, actor_id text, data jsonb, created_at timestamptz, prev_hash text, hash text)`;

/**
 * Set-based `recordEvent` for many entries (bulk writers such as ingest): one statement locks
 * the entries and reads each chain's tail, one statement appends every event. Same chain and
 * hashing as `recordEvent`; several events of one entry are chained in their order. Entries inserted by this very
 * transaction (`newEntries`) are invisible to every other one and have no events yet, so their
 * chains start at seq 1 without that first statement.
 */
export async function recordEvents(
  tx: Transaction,
  events: { entry: { id: number; workspace_id: number }; kind: EventKind; data: Record<string, unknown> }[],
  actor: EventActor,
  opts: { newEntries?: boolean } = {},
): Promise<void> {
  if (events.length === 0) return;
  // one workspace per statement: on Citus each then runs in that workspace's shard group (CONTRACT §24)
  const workspaces = [...new Set(events.map((e) => Number(e.entry.workspace_id)))].sort((a, b) => a - b);
  if (workspaces.length > 1) {
    for (const ws of workspaces)
      await recordEvents(
        tx,
        events.filter((e) => Number(e.entry.workspace_id) === ws),
        actor,
        opts,
      );
    return;
  }
  if (!opts.newEntries && new Set(events.map((e) => e.entry.id)).size === events.length) return appendOnePerEntry(tx, events, actor);
  const tails = opts.newEntries ? [] : await lockedTails(tx, workspaces[0], [...new Set(events.map((e) => e.entry.id))]);
  const tailOf = new Map<number, { seq: number | null; hash: string | null }>(tails.map((t) => [Number(t.id), t]));
  const createdAt = clock.now().toISOString();
  const rows = events.map(({ entry, kind, data }) => {
    const row = chainedEvent(tailOf.get(entry.id), entry, kind, data, actor, createdAt);
    tailOf.set(entry.id, row);
    return row;
  });
  await db().query(insertEventsSql('$1'), { bind: [JSON.stringify(rows)], transaction: tx });
}

/**
 * The entries locked (in id order), then the last event of each: two statements, because Citus runs a FOR UPDATE
 * only in a plain routed statement, not one with a lateral subquery (CONTRACT §24).
 */
async function lockedTails(tx: Transaction, workspaceId: number, ids: number[]) {
  await db().query('SELECT id FROM entries WHERE workspace_id = $2::int AND id = ANY($1::bigint[]) ORDER BY id FOR UPDATE', {
    bind: [ids, workspaceId],
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return db().query<{ id: number; seq: number | null; hash: string | null }>(
    `SELECT DISTINCT ON (entry_id) entry_id AS id, seq, hash FROM entry_events
      WHERE workspace_id = $2::int AND entry_id = ANY($1::bigint[]) ORDER BY entry_id, seq DESC`,
    { bind: [ids, workspaceId], type: QueryTypes.SELECT, transaction: tx },
  );
}

/**
 * recordEvents for at most one event per entry (of one workspace) in ONE statement: the entries are locked and each
 * chain's tail is read by the statement that appends, and the hash is computed by PostgreSQL from the canonical body
 * hashed here the same way (sha256 of `prevHash \n body`, UTF-8, hex). The callers hold the entry's lock already
 * (lockEntry) or take it here; an entry's events are appended only under its lock, so the tail read is the last one.
 * Citus runs no FOR UPDATE inside an INSERT … SELECT (CONTRACT §24): there the lock is a statement of its own.
 */
const LOCK_SQL = `SELECT 1 FROM entries WHERE workspace_id = $2::int AND id = ANY($1::bigint[]) ORDER BY id FOR UPDATE`;

const appendSql = (lock: string) => `
  WITH given AS (
    SELECT r.* FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, entry_id bigint, workspace_id int, kind text, actor_type text,
           actor_id text, data jsonb, created_at timestamptz, body text)
  ), tails AS (
    SELECT e.id, e.workspace_id, last.seq, last.hash FROM entries e
      LEFT JOIN LATERAL (SELECT seq, hash FROM entry_events
                          WHERE workspace_id = e.workspace_id AND entry_id = e.id ORDER BY seq DESC LIMIT 1) last ON true
     WHERE e.workspace_id = $2::int AND e.id IN (SELECT entry_id FROM given)${lock}
  )
  INSERT INTO entry_events (id, entry_id, workspace_id, seq, kind, actor_type, actor_id, data, created_at, prev_hash, hash)
  SELECT g.id, g.entry_id, t.workspace_id, COALESCE(t.seq, 0) + 1, g.kind, g.actor_type, g.actor_id, g.data, g.created_at, t.hash,
         encode(sha256(convert_to(COALESCE(t.hash, '') || E'\\n' || g.body, 'UTF8')), 'hex')
    FROM given g JOIN tails t ON t.id = g.entry_id`;
const APPEND_LOCKING_SQL = appendSql(' ORDER BY e.id FOR UPDATE OF e');
const APPEND_SQL = appendSql('');

async function appendOnePerEntry(
  tx: Transaction,
  events: { entry: { id: number; workspace_id: number }; kind: EventKind; data: Record<string, unknown> }[],
  actor: EventActor,
): Promise<void> {
  const createdAt = clock.now().toISOString();
  const rows = events.map(({ entry, kind, data }) => {
    const event = newEvent(entry, kind, data, actor, createdAt);
    return {
      id: event.id,
      entry_id: entry.id,
      workspace_id: entry.workspace_id,
      kind,
      actor_type: actor.actorType,
      actor_id: actor.actorId,
      data: event.data,
      created_at: createdAt,
      body: eventBody(event),
    };
  });
  const ws = events[0]!.entry.workspace_id;
  if (await onCitus()) {
    await preparedQuery(tx, 'entry_events_lock', LOCK_SQL, [rows.map((r) => r.entry_id), ws]);
    await preparedQuery(tx, 'entry_events_append', APPEND_SQL, [JSON.stringify(rows), ws]);
  } else {
    await preparedQuery(tx, 'entry_events_append_locking', APPEND_LOCKING_SQL, [JSON.stringify(rows), ws]);
  }
}

const presentEvent = (r: EventRow): EventObject => ({
  id: r.id,
  entryId: r.entry_id,
  kind: r.kind,
  actorType: r.actor_type,
  actorId: r.actor_id,
  data: r.data,
  createdAt: r.created_at.toISOString(),
  prevHash: r.prev_hash,
  hash: r.hash,
});

export async function listEvents(entryId: number): Promise<EventObject[]> {
  const rows = await db().query<EventRow>('SELECT * FROM entry_events WHERE entry_id = :id ORDER BY seq', {
    replacements: { id: entryId },
    type: QueryTypes.SELECT,
  });
  return rows.map(presentEvent);
}

/** Recomputes the chain: the first event whose hash or link does not match is reported. */
export async function verifyEvents(entryId: number): Promise<{ valid: boolean; count: number; firstBrokenEventId: string | null }> {
  const events = await listEvents(entryId);
  let prev: string | null = null;
  for (const e of events) {
    if (e.prevHash !== prev || hashEvent(prev, e) !== e.hash) return { valid: false, count: events.length, firstBrokenEventId: e.id };
    prev = e.hash;
  }
  return { valid: true, count: events.length, firstBrokenEventId: null };
}
