import { QueryTypes } from 'sequelize';
import { db, type Transaction } from '../../../db/database.js';
import type { EntryRow } from '../../entries/index.js';
import type { OutboundEntry, OutboundParty } from '../providers/provider.js';

/**
 * What a push sends for an entry (CONTRACT §9 entry body): parties by name with their
 * party-mapping externalId on this connection, and the entry's own category (CONTRACT §16) — or,
 * when it has none, that of its latest APPROVED review for this connection — by its externalId.
 * Every read names the entry's workspace (all of them are its rows): on Citus each runs on its shard group.
 */
export async function outboundEntry(tx: Transaction, connectionId: string, entry: EntryRow): Promise<OutboundEntry> {
  const partyIds = [entry.from_party_id, entry.to_party_id].filter((id): id is number => id !== null);
  const parties = partyIds.length
    ? await db().query<{ id: number; name: string; external_id: string | null }>(
        `SELECT p.id, p.name, m.external_id
           FROM parties p LEFT JOIN party_mappings m ON m.workspace_id = p.workspace_id AND m.party_id = p.id AND m.connection_id = :connectionId
          WHERE p.workspace_id = :ws AND p.id IN (:partyIds)`,
        { replacements: { ws: entry.workspace_id, connectionId, partyIds }, type: QueryTypes.SELECT, transaction: tx },
      )
    : [];
  const party = (id: number | null): OutboundParty | null => {
    const p = id === null ? undefined : parties.find((x) => x.id === id);
    if (!p) return null;
    return p.external_id ? { externalId: p.external_id, name: p.name } : { name: p.name };
  };
  const [category] = await db().query<{ external_id: string | null }>(
    `SELECT c.external_id FROM accounting_categories c
      WHERE c.workspace_id = :ws AND c.id = COALESCE(
        CAST(:entryCategoryId AS uuid),
        (SELECT r.category_id FROM accounting_reviews r
          WHERE r.workspace_id = :ws AND r.entry_id = :entryId AND r.connection_id = :connectionId AND r.status = 'APPROVED'
          ORDER BY r.decided_at DESC, r.id DESC LIMIT 1))`,
    {
      replacements: { ws: entry.workspace_id, entryId: entry.id, connectionId, entryCategoryId: entry.category_id },
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  return {
    localId: entry.id,
    entryType: entry.entry_type,
    amountCents: entry.amount_cents,
    currency: entry.base_currency.trim(),
    entryDate: entry.entry_date,
    description: entry.description,
    reference: entry.reference,
    voided: entry.entry_status === 'VOIDED',
    fromParty: party(entry.from_party_id),
    toParty: party(entry.to_party_id),
    categoryExternalId: category?.external_id ?? null,
  };
}
