/**
 * Generates a large, deterministic dataset for benchmarks, entirely in SQL
 * (INSERT … SELECT generate_series, pseudo-random values from hashint8extended):
 *
 *   tsx bench/generate-dataset.ts [--entries 1000000] [--fresh]
 *
 * One workspace ("Bench <n>") with 20 projects, 2,000 parties, 50 tags and `entries` entries over
 * three years (2024–2026): 40 % INCOME; statuses 50 % PENDING, 15 % UNDER_REVIEW, 25 % COMPLETED,
 * 4 % VOIDED, 3 % REJECTED, 3 % CANCELLED; currencies 80 % USD, 15 % EUR, 5 % JPY; 0–3 tags each
 * (1.5 on average). Parties as in real books: the first 5 are the workspace's own accounts, the
 * other 1,995 counterparties; INCOME runs counterparty → own account, EXPENSE own account →
 * counterparty; 5 % of entries lack the from-party and 5 % the to-party. 1 % of the entries are
 * partial refunds of others (opposite type, parties swapped, a few days later, linked as REFUND).
 */
import { QueryTypes } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import { openBenchDatabase } from './bench-db.js';

/** The workspace name of a generated dataset; v2: 2,000 parties and 1 % refunds (older datasets get rebuilt). */
export const datasetName = (entries: number) => `Bench v2 ${entries.toLocaleString('en-US')}`;

export type GeneratedDataset = { workspaceId: number; projectIds: number[]; entries: number; seconds: number };

const PROJECTS = 20;
const PARTIES = 2_000;
/** one entry in REFUND_EVERY is a refund of another */
const REFUND_EVERY = 100;
/** parties 1..OWN are the workspace's own accounts */
const OWN = 5;
const TAGS = 50;
const BATCH = 100_000;

async function one<T extends object>(db: Sequelize, sql: string, bind: unknown[] = []): Promise<T> {
  const [row] = await db.query<T>(sql, { bind, type: QueryTypes.SELECT });
  return row;
}

async function ids(db: Sequelize, sql: string, bind: unknown[]): Promise<number[]> {
  return (await db.query<{ id: number }>(sql, { bind, type: QueryTypes.SELECT })).map((r) => r.id);
}

/**
 * Index-only scans need the visibility map set; a VACUUM that runs while another snapshot
 * (autovacuum's ANALYZE, say) is open cannot set it, so repeat until nearly every page is.
 */
async function vacuumUntilAllVisible(db: Sequelize, table: string): Promise<void> {
  for (let attempt = 0; attempt < 10; attempt++) {
    await db.query(`VACUUM (ANALYZE) ${table}`);
    const { pages, visible } = await one<{ pages: number; visible: number }>(
      db,
      'SELECT relpages AS pages, relallvisible AS visible FROM pg_class WHERE oid = $1::regclass',
      [table],
    );
    if (visible >= pages * 0.99) return;
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

export async function generateDataset(db: Sequelize, entries: number, log: (m: string) => void = console.log): Promise<GeneratedDataset> {
  const started = Date.now();
  const { id: workspaceId } = await one<{ id: number }>(
    db,
    `INSERT INTO workspaces (name, base_currency) VALUES ($1, 'USD') RETURNING id`,
    [datasetName(entries)],
  );
  const { id: sourceId } = await one<{ id: number }>(
    db,
    `INSERT INTO entry_sources (workspace_id, kind, name) VALUES ($1, 'MANUAL', 'Manual') RETURNING id`,
    [workspaceId],
  );
  const projectIds = await ids(
    db,
    `INSERT INTO projects (workspace_id, name, code) SELECT $1, 'Project ' || g, 'P' || g FROM generate_series(1, ${PROJECTS}) g RETURNING id`,
    [workspaceId],
  );
  const partyIds = await ids(
    db,
    `INSERT INTO parties (workspace_id, name, party_type, country)
     SELECT $1, CASE WHEN g <= ${OWN} THEN 'Own account ' || g ELSE 'Party ' || g END,
            CASE WHEN g % 4 = 0 THEN 'PERSON' ELSE 'ORGANIZATION' END, (ARRAY['US','DE','FR','GB','NL'])[1 + g % 5]
       FROM generate_series(1, ${PARTIES}) g RETURNING id`,
    [workspaceId],
  );
  const tagIds = await ids(
    db,
    `INSERT INTO tags (workspace_id, name) SELECT $1, 'tag-' || g FROM generate_series(1, ${TAGS}) g RETURNING id`,
    [workspaceId],
  );

  const refunds = Math.floor(entries / REFUND_EVERY);
  const regular = entries - refunds;
  for (let first = 1; first <= regular; first += BATCH) {
    const last = Math.min(regular, first + BATCH - 1);
    await db.query(
      `INSERT INTO entries (workspace_id, project_id, entry_source_id, entry_type, entry_status, status_reason, base_currency,
                            amount_cents, from_party_id, to_party_id, entry_date, description, reference)
       SELECT $1, ($2::int[])[1 + h.p % ${PROJECTS}], $3,
              CASE WHEN h.t % 100 < 40 THEN 'INCOME' ELSE 'EXPENSE' END,
              s.status, CASE WHEN s.status IN ('VOIDED', 'REJECTED', 'CANCELLED') THEN 'bench' END,
              CASE WHEN h.c % 100 < 80 THEN 'USD' WHEN h.c % 100 < 95 THEN 'EUR' ELSE 'JPY' END,
              100 + h.a % 2000000 * (1 + h.a % 7),
              CASE WHEN h.f % 100 < 5 THEN NULL WHEN h.t % 100 < 40 THEN ($4::int[])[1 + ${OWN} + h.f % ${PARTIES - OWN}]
                   ELSE ($4::int[])[1 + h.f % ${OWN}] END,
              CASE WHEN h.o % 100 < 5 THEN NULL WHEN h.t % 100 < 40 THEN ($4::int[])[1 + h.o % ${OWN}]
                   ELSE ($4::int[])[1 + ${OWN} + h.o % ${PARTIES - OWN}] END,
              date '2024-01-01' + (h.d % 1096)::int,
              'Bench entry ' || g, 'REF-' || g
         FROM generate_series($5::bigint, $6::bigint) g
        CROSS JOIN LATERAL (SELECT abs(hashint8extended(g, 1)) AS p, abs(hashint8extended(g, 2)) AS t, abs(hashint8extended(g, 3)) AS st,
                                   abs(hashint8extended(g, 4)) AS c, abs(hashint8extended(g, 5)) AS a, abs(hashint8extended(g, 6)) AS f,
                                   abs(hashint8extended(g, 7)) AS o, abs(hashint8extended(g, 8)) AS d) h
        CROSS JOIN LATERAL (SELECT CASE WHEN h.st % 100 < 50 THEN 'PENDING' WHEN h.st % 100 < 65 THEN 'UNDER_REVIEW'
                                        WHEN h.st % 100 < 90 THEN 'COMPLETED' WHEN h.st % 100 < 94 THEN 'VOIDED'
                                        WHEN h.st % 100 < 97 THEN 'REJECTED' ELSE 'CANCELLED' END AS status) s`,
      { bind: [workspaceId, projectIds, sourceId, partyIds, first, last], type: QueryTypes.INSERT },
    );
    log(`  entries ${last.toLocaleString('en-US')} / ${regular.toLocaleString('en-US')}`);
  }
  // The caps trigger on entry_links (migration 0012) checks each new link at commit; for 10,000 links
  // inserted in one statement it plans against a table whose statistics say empty and took over 20
  // minutes at 1,000,000 entries. The refunds hold the caps by construction (one refund of half of
  // each original), so the trigger is off for this statement and the caps are checked once, set-based,
  // after it (below).
  const tx = await db.transaction();
  await db.query('ALTER TABLE entry_links DISABLE TRIGGER entry_links_caps', { transaction: tx });
  await db.query(
    `WITH originals AS (
       SELECT id, project_id, entry_type, base_currency, amount_cents, from_party_id, to_party_id, entry_date
         FROM entries WHERE workspace_id = $1 AND entry_status IN ('PENDING', 'UNDER_REVIEW', 'COMPLETED') AND amount_cents >= 2
        ORDER BY hashint8extended(id, 11) LIMIT $3
     ), refunds AS (
       INSERT INTO entries (workspace_id, project_id, entry_source_id, entry_type, entry_status, base_currency, amount_cents,
                            from_party_id, to_party_id, entry_date, description, reference)
       SELECT $1, o.project_id, $2, CASE o.entry_type WHEN 'INCOME' THEN 'EXPENSE' ELSE 'INCOME' END, 'PENDING', o.base_currency,
              o.amount_cents / 2, o.to_party_id, o.from_party_id, LEAST(o.entry_date + 7, date '2026-12-31'),
              'Refund of entry #' || o.id, 'REFUND-' || o.id
         FROM originals o
       RETURNING id, reference
     )
     INSERT INTO entry_links (workspace_id, link_type, original_entry_id, derived_entry_id)
     SELECT $1, 'REFUND', substr(reference, 8)::bigint, id FROM refunds`,
    { bind: [workspaceId, sourceId, refunds], type: QueryTypes.INSERT, transaction: tx },
  );
  await db.query('ALTER TABLE entry_links ENABLE TRIGGER entry_links_caps', { transaction: tx });
  await tx.commit();
  await db.query('ANALYZE entry_links');
  const broken = await one<{ n: number }>(
    db,
    `SELECT count(*)::int AS n FROM entry_cap_totals($1, ARRAY(SELECT original_entry_id FROM entry_links WHERE workspace_id = $1))
      WHERE live_cents > amount_cents`,
    [workspaceId],
  );
  if (broken.n !== 0) throw new Error(`dataset: ${broken.n} refund chains above their original's amount`);
  log(`  refunds ${refunds.toLocaleString('en-US')}`);
  // 0–3 distinct tags per entry: offsets 7, 14, 21 from a per-entry start never collide modulo 50
  await db.query(
    `INSERT INTO entry_tags (entry_id, tag_id, workspace_id)
     SELECT e.id, ($2::int[])[1 + (abs(hashint8extended(e.id, 9)) + k * 7) % ${TAGS}], e.workspace_id
       FROM entries e CROSS JOIN generate_series(1, 3) k
      WHERE e.workspace_id = $1 AND k <= abs(hashint8extended(e.id, 10)) % 4`,
    { bind: [workspaceId, tagIds], type: QueryTypes.INSERT },
  );
  log('  tags done; VACUUM ANALYZE');
  for (const table of ['entries', 'entry_tags']) await vacuumUntilAllVisible(db, table);
  return { workspaceId, projectIds, entries, seconds: (Date.now() - started) / 1000 };
}

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const entries = Number(argValue('--entries') ?? 1_000_000);
  if (!Number.isInteger(entries) || entries < 1) throw new Error('--entries must be a positive integer');
  const bench = await openBenchDatabase({ fresh: process.argv.includes('--fresh') });
  try {
    console.log(`generating ${entries.toLocaleString('en-US')} entries in ${bench.url.replace(/\/\/[^@]*@/, '//')}`);
    const result = await generateDataset(bench.sequelize, entries);
    console.log(`workspace ${result.workspaceId}: ${entries.toLocaleString('en-US')} entries in ${result.seconds.toFixed(1)} s`);
  } finally {
    await bench.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
