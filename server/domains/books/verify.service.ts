import { QueryTypes, Transaction as Tx } from 'sequelize';
import { db } from '../../db/database.js';
import { onCitus } from '../../db/distributed.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { z } from 'zod/v4';
import type { VerifyResult } from '../../../shared/contracts/books-write.js';

type Posted = { kind: 'ENTRY' | 'SETTLEMENT'; date: string; lines: [string, number, number][] };
const MISMATCHES_MAX = 1000;

/** The workspace's entries ($1): their ids and how many. */
const IDS = `ids AS MATERIALIZED (SELECT COALESCE(array_agg(id), '{}') AS a, count(*)::int AS n FROM entries WHERE workspace_id = $1)`;
/** Accounts that left their role ($1's), each mapped to the role's account now. */
const RETIRED = `retired AS MATERIALIZED (
       SELECT jsonb_object_agg(h.category_id::text, r.category_id::text) AS m
         FROM ledger_role_history h JOIN ledger_roles r ON r.workspace_id = h.workspace_id AND r.role = h.role
        WHERE h.workspace_id = $1 AND r.category_id <> h.category_id
          AND NOT EXISTS (SELECT 1 FROM ledger_roles now WHERE now.workspace_id = $1 AND now.category_id = h.category_id)
     )`;
/** After ids and retired: what each entry should have posted against what it did, the entries that differ. */
const COMPARE = `x AS (
       SELECT entry_id, jsonb_agg(jsonb_build_object('kind', kind, 'date', txn_date, 'lines', sig) ORDER BY kind) AS shown,
              jsonb_agg(jsonb_build_array(kind, CASE WHEN kind = 'ENTRY' THEN txn_date END, bank_match_id,
                                          books_sig_mapped(sig, (SELECT m FROM retired))) ORDER BY kind) AS cmp
         FROM books_expected_transactions($1, (SELECT a FROM ids)) GROUP BY entry_id
     ),
     p AS (
       SELECT entry_id, jsonb_agg(jsonb_build_object('kind', kind, 'date', txn_date, 'lines', sig) ORDER BY kind, id) AS shown,
              jsonb_agg(jsonb_build_array(kind, CASE WHEN kind = 'ENTRY' THEN txn_date END, bank_match_id,
                                          books_sig_mapped(sig, (SELECT m FROM retired))) ORDER BY kind, id) AS cmp
         FROM books_live_entries($1, (SELECT a FROM ids)) GROUP BY entry_id
     )
     SELECT COALESCE(x.entry_id, p.entry_id)::text AS entry_id, (SELECT n FROM ids) AS checked, x.shown AS expected, p.shown AS posted
       FROM x FULL JOIN p ON p.entry_id = x.entry_id
      WHERE x.cmp IS DISTINCT FROM p.cmp
     UNION ALL SELECT NULL, (SELECT n FROM ids), NULL, NULL
     ORDER BY 1 NULLS FIRST
     LIMIT ${MISMATCHES_MAX + 1}`;

/**
 * GET /ledger/verify (accounting.manage): what each entry of the workspace should have posted now, rebuilt by the
 * one derivation (books_expected_transactions, migration 0045), against its live ENTRY and SETTLEMENT transactions
 * in the journal. A settlement is compared by its match and lines, not its date (moved out of closed periods).
 * A line on an account that has since left its role (PUT /ledger/roles edits no posted line) is compared as a
 * line on the role's account now (migration 0047, ledger_role_history).
 */
export async function verifyBooks(actor: Actor, workspaceId: number): Promise<z.infer<typeof VerifyResult>> {
  scope.requireWorkspaceMember(actor, workspaceId);
  type Row = { entry_id: string; checked: number; expected: Posted[] | null; posted: Posted[] | null };
  let rows: Row[];
  if (!(await onCitus())) {
    rows = await db().query<Row>(`WITH ${IDS}, ${RETIRED}, ${COMPARE}`, { bind: [workspaceId], type: QueryTypes.SELECT });
  } else {
    // Citus routes a statement whose tables all name one workspace to its shard group whole, function calls included,
    // and the books' functions read distributed tables, which a query on a shard may not: the workspace's entries and
    // retired accounts are read first (routed), then compared by a statement of functions alone (on the coordinator,
    // each of their statements routed), in one snapshot
    rows = await db().transaction({ isolationLevel: Tx.ISOLATION_LEVELS.REPEATABLE_READ, readOnly: true }, async (tx) => {
      const [read] = await db().query<{ a: string[]; n: number; m: Record<string, string> | null }>(
        `WITH ${IDS}, ${RETIRED} SELECT ids.a, ids.n, retired.m FROM ids, retired`,
        { bind: [workspaceId], type: QueryTypes.SELECT, transaction: tx },
      );
      return db().query<Row>(`WITH ids AS (SELECT $2::bigint[] AS a, $3::int AS n), retired AS (SELECT $4::jsonb AS m), ${COMPARE}`, {
        bind: [workspaceId, read.a, read.n, read.m === null ? null : JSON.stringify(read.m)],
        type: QueryTypes.SELECT,
        transaction: tx,
      });
    });
  }
  const present = (list: Posted[] | null) =>
    (list ?? []).map((t) => ({
      kind: t.kind,
      date: t.date,
      lines: t.lines.map(([categoryId, debitCents, creditCents]) => ({ categoryId, debitCents, creditCents })),
    }));
  const mismatches = rows
    .filter((r) => r.entry_id !== null)
    .map((r) => ({ entryId: Number(r.entry_id), expected: present(r.expected), posted: present(r.posted) }));
  return { ok: mismatches.length === 0, entriesChecked: rows[0]?.checked ?? 0, mismatches };
}
