import pg from 'pg';
import { pgClientConfig } from '../../server/db/database.js';

/**
 * Journal rows written straight into the tables, as balanced transactions (so they commit): the books'
 * read side tested on rows it did not derive itself. `lines`: [categoryId, debit, credit].
 */
export type RawLine = [categoryId: string, debitCents: number, creditCents: number];
export type RawTxn = {
  date: string;
  kind: 'MANUAL' | 'OPENING' | 'REVERSAL' | 'ENTRY';
  lines: RawLine[];
  description?: string;
  reverses?: number;
  entryId?: number;
};

export async function withClient<T>(work: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(pgClientConfig());
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Inserts `txns` in order, each in its own transaction; returns their ids. */
export function postRaw(workspaceId: number, txns: RawTxn[]): Promise<number[]> {
  return withClient(async (c) => {
    const ids: number[] = [];
    for (const t of txns) {
      await c.query('BEGIN');
      const { rows } = await c.query(
        `INSERT INTO journal_transactions (workspace_id, kind, txn_date, reverses, description, entry_id) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
        [workspaceId, t.kind, t.date, t.reverses ?? null, t.description ?? null, t.entryId ?? null],
      );
      const id = Number(rows[0].id);
      for (const [i, [cat, d, cr]] of t.lines.entries()) {
        await c.query(
          `INSERT INTO journal_lines (transaction_id, workspace_id, line_no, category_id, debit_cents, credit_cents, txn_date, kind, entry_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [id, workspaceId, i + 1, cat, d, cr, t.date, t.kind, t.entryId ?? null],
        );
      }
      await c.query('COMMIT');
      ids.push(id);
    }
    return ids;
  });
}

/** Accounts (categories) straight in the table: code → id. */
export function rawAccounts(workspaceId: number, accounts: [code: string, name: string, type: string][]): Promise<Record<string, string>> {
  return withClient(async (c) => {
    const out: Record<string, string> = {};
    for (const [code, name, type] of accounts) {
      const { rows } = await c.query(
        `INSERT INTO accounting_categories (workspace_id, code, name, account_type) VALUES ($1, $2, $3, $4) RETURNING id`,
        [workspaceId, code, name, type],
      );
      out[code] = rows[0].id;
    }
    return out;
  });
}
