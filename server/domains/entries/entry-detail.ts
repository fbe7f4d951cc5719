import { QueryTypes } from 'sequelize';
import { db } from '../../db/database.js';
import { Party } from '../../db/models/index.js';
import type { EntryDetail } from '../../../shared/contracts/entries.js';
import { presentParty } from '../parties/parties.service.js';
import type { EntryRow } from './entry-rows.js';
import { documentsOfEntry } from '../documents/documents.service.js';

type Parts = Pick<EntryDetail, 'items' | 'transactions' | 'documents' | 'tags' | 'parties'>;


/** Items, payments, documents, tags and parties of one entry, in a fixed number of queries. */
export async function loadDetailParts(row: EntryRow): Promise<Parts> {
  const q = <T extends object>(sql: string) => db().query<T>(sql, { replacements: { id: row.id }, type: QueryTypes.SELECT });
  const partyIds = [row.from_party_id, row.to_party_id].filter((id): id is number => id !== null);
  const [items, transactions, tags, parties, documents] = await Promise.all([
    q<EntryDetail['items'][number]>(
      `SELECT id, description, quantity::float8 AS quantity, unit_amount_cents AS "unitAmountCents", amount_cents AS "amountCents",
              category_id AS "categoryId"
         FROM entry_items WHERE entry_id = :id ORDER BY position`,
    ),
    q<EntryDetail['transactions'][number]>(
      `SELECT id, transaction_date AS "transactionDate", amount_cents AS "amountCents", method, external_ref AS "externalRef"
         FROM entry_transactions WHERE entry_id = :id ORDER BY transaction_date, id`,
    ),
    q<EntryDetail['tags'][number]>(
      'SELECT t.id, t.name, t.color FROM entry_tags et JOIN tags t ON t.id = et.tag_id WHERE et.entry_id = :id ORDER BY t.name, t.id',
    ),
    partyIds.length ? Party.findAll({ where: { id: partyIds } }) : Promise.resolve([] as Party[]),
    documentsOfEntry(row.id),
  ]);
  const party = (id: number | null) => {
    const p = parties.find((x) => x.id === id);
    return p ? presentParty(p) : null;
  };
  return { items, transactions, documents, tags, parties: { from: party(row.from_party_id), to: party(row.to_party_id) } };
}
