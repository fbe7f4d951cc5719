import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import type { EntryStatus, EntryType, LinkType } from '../../../shared/contracts/entries.js';
import type { EntryRow } from './entry-rows.js';
import { recordEvent, type EventActor } from './events.js';
import { entryHooks } from './entry-hooks.js';

export type NewEntry = {
  workspaceId: number;
  projectId: number;
  entrySourceId: number;
  entryType: EntryType;
  baseCurrency: string;
  amountCents: number;
  fromPartyId?: number | null;
  toPartyId?: number | null;
  entryDate: string;
  description?: string | null;
  reference?: string | null;
  excludeFromSync?: boolean;
  createdBy: string | null;
  items?: { description: string; quantity: number; unitAmountCents: number; amountCents: number; categoryId?: string }[];
  transactions?: { transactionDate: string; amountCents: number; method?: string; externalRef?: string }[];
  tagIds?: number[];
};

/** Inserts an entry with its items, payments and tags, and records ENTRY_CREATED. No rule checks here. */
export async function insertEntry(
  tx: Transaction,
  e: NewEntry,
  actor: EventActor,
  eventData: Record<string, unknown> = {},
): Promise<EntryRow> {
  const now = clock.now();
  const status: EntryStatus = 'PENDING';
  const [row] = await db().query<EntryRow>(
    `INSERT INTO entries (workspace_id, project_id, entry_source_id, entry_type, entry_status, base_currency, amount_cents,
                          from_party_id, to_party_id, entry_date, description, reference, exclude_from_sync, created_by, created_at, updated_at)
     VALUES (:ws, :projectId, :sourceId, :type, :status, :currency, :amount, :fromParty, :toParty, :date, :description, :reference,
             :exclude, :createdBy, :now, :now)
     RETURNING *`,
    {
      replacements: {
        ws: e.workspaceId,
        projectId: e.projectId,
        sourceId: e.entrySourceId,
        type: e.entryType,
        status,
        currency: e.baseCurrency,
        amount: e.amountCents,
        fromParty: e.fromPartyId ?? null,
        toParty: e.toPartyId ?? null,
        date: e.entryDate,
        description: e.description ?? null,
        reference: e.reference ?? null,
        exclude: e.excludeFromSync ?? false,
        createdBy: e.createdBy,
        now,
      },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  const items = e.items ?? [];
  if (items.length) {
    await db().query(
      `INSERT INTO entry_items (entry_id, workspace_id, position, description, quantity, unit_amount_cents, amount_cents, category_id)
       SELECT :entryId, :ws, i.position, i.description, i.quantity, i.unit_amount_cents, i.amount_cents, i.category_id
         FROM jsonb_to_recordset(:items) AS i(position int, description text, quantity numeric, unit_amount_cents bigint, amount_cents bigint, category_id uuid)`,
      {
        replacements: {
          entryId: row.id,
          ws: e.workspaceId,
          items: JSON.stringify(
            items.map((it, position) => ({
              position,
              description: it.description,
              quantity: it.quantity,
              unit_amount_cents: it.unitAmountCents,
              amount_cents: it.amountCents,
              category_id: it.categoryId ?? null,
            })),
          ),
        },
        transaction: tx,
      },
    );
  }
  const payments = e.transactions ?? [];
  if (payments.length) {
    await db().query(
      `INSERT INTO entry_transactions (entry_id, workspace_id, transaction_date, amount_cents, method, external_ref)
       SELECT :entryId, :ws, t.transaction_date, t.amount_cents, t.method, t.external_ref
         FROM jsonb_to_recordset(:payments) AS t(transaction_date date, amount_cents bigint, method text, external_ref text)`,
      {
        replacements: {
          entryId: row.id,
          ws: e.workspaceId,
          payments: JSON.stringify(
            payments.map((p) => ({
              transaction_date: p.transactionDate,
              amount_cents: p.amountCents,
              method: p.method ?? null,
              external_ref: p.externalRef ?? null,
            })),
          ),
        },
        transaction: tx,
      },
    );
  }
  await setEntryTags(tx, row, e.tagIds ?? []);
  await recordEvent(
    tx,
    row,
    'ENTRY_CREATED',
    {
      entryType: row.entry_type,
      amountCents: row.amount_cents,
      baseCurrency: row.base_currency.trim(),
      entryDate: row.entry_date,
      projectId: row.project_id,
      ...eventData,
    },
    actor,
  );
  await entryHooks.created(tx, [row], actor);
  return reloadRow(tx, row.id);
}

/** The row as it is now in this transaction (a hook may have moved its status). */
async function reloadRow(tx: Transaction, id: number): Promise<EntryRow> {
  const [row] = await db().query<EntryRow>('SELECT * FROM entries WHERE id = :id', {
    replacements: { id },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return row;
}

export async function setEntryTags(tx: Transaction, entry: { id: number; workspace_id: number }, tagIds: number[]): Promise<void> {
  await db().query('DELETE FROM entry_tags WHERE entry_id = :id', { replacements: { id: entry.id }, transaction: tx });
  const unique = [...new Set(tagIds)];
  if (unique.length === 0) return;
  await db().query(`INSERT INTO entry_tags (entry_id, tag_id, workspace_id) SELECT :id, unnest(ARRAY[:tagIds]::int[]), :ws`, {
    replacements: { id: entry.id, tagIds: unique, ws: entry.workspace_id },
    transaction: tx,
  });
}

export async function tagIdsOf(tx: Transaction | undefined, entryId: number): Promise<number[]> {
  const rows = await db().query<{ tag_id: number }>('SELECT tag_id FROM entry_tags WHERE entry_id = :id ORDER BY tag_id', {
    replacements: { id: entryId },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return rows.map((r) => r.tag_id);
}

export async function linkEntries(
  tx: Transaction,
  workspaceId: number,
  type: LinkType,
  originalId: number,
  derivedId: number,
): Promise<void> {
  await db().query(
    `INSERT INTO entry_links (workspace_id, link_type, original_entry_id, derived_entry_id, created_at) VALUES (:ws, :type, :o, :d, :now)`,
    { replacements: { ws: workspaceId, type, o: originalId, d: derivedId, now: clock.now() }, transaction: tx },
  );
}

/** Sum of the non-voided entries derived from `originalId` by links of `type`. */
export async function derivedTotal(tx: Transaction, originalId: number, types: LinkType[]): Promise<number> {
  const [row] = await db().query<{ total: number }>(
    `SELECT COALESCE(SUM(d.amount_cents), 0)::bigint AS total
       FROM entry_links l JOIN entries d ON d.id = l.derived_entry_id
      WHERE l.original_entry_id = :id AND l.link_type IN (:types) AND d.entry_status <> 'VOIDED'`,
    { replacements: { id: originalId, types }, type: QueryTypes.SELECT, transaction: tx },
  );
  return row.total;
}
