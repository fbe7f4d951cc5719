import { QueryTypes, type Transaction } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';

/** Whether the `citus` extension exists in the database: a Citus coordinator (CONTRACT §24). */
export async function citusInstalled(db: Sequelize): Promise<boolean> {
  const [ext] = await db.query<{ citus: boolean }>(`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS citus`, {
    type: QueryTypes.SELECT,
  });
  return ext?.citus === true;
}

/**
 * CONTRACT §24: on a database where the `citus` extension exists, every table of the public schema
 * with a `workspace_id` is distributed by it, co-located with `workspaces` (distributed by its
 * `id`), so that everything about one workspace lives in one shard group on one worker. Tables
 * without a workspace (users, sessions, login failures, idempotency records, API key rate windows,
 * schema_migrations, pg-boss's own schema) stay on the coordinator (bank_match_checks did until 0051 gave it a workspace).
 *
 * What Citus needs, and what this step therefore changes on Citus only:
 * - every PRIMARY KEY / UNIQUE constraint / unique index of a distributed table includes the
 *   distribution column: one that does not gains `workspace_id` as its last column (same name);
 * - foreign keys between distributed tables include the distribution column: those that do not
 *   gain `workspace_id` on both sides; foreign keys from a distributed table to a coordinator table
 *   (users) or from a coordinator table to a distributed one (api_key_rate_windows → api_keys) cannot
 *   exist in Citus and are dropped (the services already check those ids);
 * - a distributed table's identity column must be bigint: an int identity becomes an int column
 *   fed by its own sequence (same values, API types unchanged);
 * - triggers are kept on the shards (`citus.enable_unsafe_triggers`): every invariant trigger reads
 *   only rows of the same workspace, which are in the same shard group, on the same worker.
 *
 * Idempotent (a table already distributed is left alone), so it may run again after later
 * migrations. On plain PostgreSQL it returns at once and changes nothing.
 */
export async function distributeOnCitus(db: Sequelize): Promise<boolean> {
  if (!(await citusInstalled(db))) return false;
  // one transaction (and one connection, which the SET LOCALs need): all of it or nothing
  await db.transaction((transaction) => distribute(db, transaction));
  return true;
}

async function distribute(db: Sequelize, transaction: Transaction): Promise<void> {
  const q = <T extends object>(sql: string, replacements?: Record<string, unknown>) =>
    db.query<T>(sql, { type: QueryTypes.SELECT, replacements, transaction });
  const exec = (sql: string) => db.query(sql, { transaction });

  const tenant = await q<{ name: string }>(`
    SELECT c.relname AS name FROM pg_class c
     WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r'
       AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'workspace_id' AND NOT a.attisdropped)
       AND NOT EXISTS (SELECT 1 FROM pg_dist_partition p WHERE p.logicalrelid = c.oid)
     ORDER BY 1`);
  const [ws] = await q<{ done: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'workspaces'::regclass) AS done`,
  );
  if (tenant.length === 0 && ws?.done) return;
  /** the tables this run distributes, each with its distribution column */
  const distCol = new Map<string, string>(tenant.map((t) => [t.name, 'workspace_id']));
  if (!ws?.done) distCol.set('workspaces', 'id');
  const names = [...distCol.keys()];

  await exec(`SET LOCAL citus.enable_unsafe_triggers = on`);
  // later migrations (and the books' backfill, which disables a trigger for itself) change triggers of distributed tables too
  await exec(`DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET citus.enable_unsafe_triggers = on', current_database()); END $$`);
  await exec(`SET LOCAL citus.multi_shard_modify_mode = 'sequential'`);

  // 1. every foreign key touching these tables is dropped now and put back (or not) after distribution
  const fks = await q<{ tbl: string; name: string; def: string; ref: string; cols: string[]; refcols: string[] }>(
    `
    SELECT c.conrelid::regclass::text AS tbl, c.conname AS name, pg_get_constraintdef(c.oid) AS def,
           c.confrelid::regclass::text AS ref,
           ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i) AS cols,
           ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.i) AS refcols
      FROM pg_constraint c
     WHERE c.contype = 'f' AND (c.conrelid::regclass::text IN (:names) OR c.confrelid::regclass::text IN (:names))`,
    { names },
  );
  for (const fk of fks) await exec(`ALTER TABLE ${ident(fk.tbl)} DROP CONSTRAINT ${ident(fk.name)}`);

  // 2. unique constraints and indexes gain the distribution column
  const uniques = await q<{ tbl: string; idx: string; def: string; con: string | null; contype: string | null; cols: string[] }>(
    `
    SELECT t.relname AS tbl, ic.relname AS idx, pg_get_indexdef(i.indexrelid) AS def, con.conname AS con, con.contype::text AS contype,
           ARRAY(SELECT a.attname::text FROM unnest(i.indkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n ORDER BY k.o) AS cols
      FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_class ic ON ic.oid = i.indexrelid
      LEFT JOIN pg_constraint con ON con.conindid = i.indexrelid AND con.contype IN ('p', 'u')
     WHERE i.indisunique AND t.relnamespace = 'public'::regnamespace AND t.relname IN (:names)`,
    { names },
  );
  for (const u of uniques) {
    const col = distCol.get(u.tbl)!;
    if (u.cols.includes(col)) continue;
    if (u.con) {
      const kind = u.contype === 'p' ? 'PRIMARY KEY' : 'UNIQUE';
      await exec(`ALTER TABLE ${ident(u.tbl)} DROP CONSTRAINT ${ident(u.con)}`);
      await exec(`ALTER TABLE ${ident(u.tbl)} ADD CONSTRAINT ${ident(u.con)} ${kind} (${[...u.cols, col].map(ident).join(', ')})`);
    } else {
      await exec(`DROP INDEX ${ident(u.idx)}`);
      await exec(withColumn(u.def, col));
    }
  }

  // 3. int identity columns become sequence-fed columns (Citus distributes only bigint identities)
  const identities = await q<{ tbl: string; col: string }>(
    `
    SELECT c.relname AS tbl, a.attname AS col FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
     WHERE c.relnamespace = 'public'::regnamespace AND c.relname IN (:names) AND a.attidentity <> '' AND a.atttypid <> 'int8'::regtype`,
    { names },
  );
  for (const { tbl, col } of identities) {
    const seq = `${tbl}_${col}_seq`;
    await exec(`ALTER TABLE ${ident(tbl)} ALTER COLUMN ${ident(col)} DROP IDENTITY`);
    await exec(`CREATE SEQUENCE ${ident(seq)} AS integer OWNED BY ${ident(tbl)}.${ident(col)}`);
    await exec(`SELECT setval('${seq}', COALESCE((SELECT max(${ident(col)}) FROM ${ident(tbl)}), 0) + 1, false)`);
    await exec(`ALTER TABLE ${ident(tbl)} ALTER COLUMN ${ident(col)} SET DEFAULT nextval('${seq}')`);
  }

  // 4. the notifying triggers (auth_changed, entries_changed, rules_changed) would fire on the workers,
  // where nobody listens and where a NOTIFY cannot be part of a two-phase commit: they go, and the
  // service's caches stay off on Citus (server/db/change-listener.ts)
  const notifying = await q<{ tbl: string; name: string }>(
    `
    SELECT c.relname AS tbl, t.tgname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid
     WHERE NOT t.tgisinternal AND c.relnamespace = 'public'::regnamespace AND c.relname IN (:names) AND p.proname LIKE 'notify\\_%'`,
    { names },
  );
  for (const t of notifying) await exec(`DROP TRIGGER ${ident(t.name)} ON ${ident(t.tbl)}`);

  // 5. distribute: workspaces first, every tenant table co-located with it
  if (!ws?.done) await exec(`SELECT create_distributed_table('workspaces', 'id')`);
  for (const t of tenant) await exec(`SELECT create_distributed_table('${t.name}', 'workspace_id', colocate_with => 'workspaces')`);

  // 6. the foreign keys Citus can hold come back, with the distribution column where they lacked it
  const distributed = new Map<string, string>(
    (
      await q<{ tbl: string; col: string }>(
        `SELECT logicalrelid::regclass::text AS tbl, column_to_column_name(logicalrelid, partkey) AS col FROM pg_dist_partition WHERE partmethod = 'h'`,
      )
    ).map((r) => [r.tbl, r.col]),
  );
  for (const fk of fks) {
    const from = distributed.get(fk.tbl);
    const to = distributed.get(fk.ref);
    if (!from && !to) {
      await exec(`ALTER TABLE ${ident(fk.tbl)} ADD CONSTRAINT ${ident(fk.name)} ${fk.def}`);
      continue;
    }
    if (!from || !to) continue; // coordinator ↔ distributed: Citus cannot hold it
    const at = fk.cols.indexOf(from);
    if (at >= 0 && fk.refcols[at] === to) {
      await exec(`ALTER TABLE ${ident(fk.tbl)} ADD CONSTRAINT ${ident(fk.name)} ${fk.def}`);
      continue;
    }
    const tail = fk.def.replace(/^FOREIGN KEY \([^)]*\) REFERENCES [^(]+\([^)]*\)/, '');
    const cols = [...fk.cols, from].map(ident).join(', ');
    const refcols = [...fk.refcols, to].map(ident).join(', ');
    await exec(
      `ALTER TABLE ${ident(fk.tbl)} ADD CONSTRAINT ${ident(fk.name)} FOREIGN KEY (${cols}) REFERENCES ${ident(fk.ref)} (${refcols})${tail}`,
    );
  }

  // 7. SQL-language functions that read distributed tables become PL/pgSQL (same signature, same
  // body): Citus cannot plan a parameterized SQL function's statements over distributed tables
  await sqlFunctionsToPlpgsql(q, exec, [...distributed.keys()]);

  // 8. the coordinator's own tables join Citus' metadata as local tables: a query may then join them
  // with distributed tables (users with memberships), which Citus plans by pulling the local rows
  const local = await q<{ name: string }>(`
    SELECT c.relname AS name FROM pg_class c
     WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r'
       AND NOT EXISTS (SELECT 1 FROM pg_dist_partition p WHERE p.logicalrelid = c.oid) ORDER BY 1`);
  for (const t of local) {
    const [again] = await q<{ done: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = :t::regclass) AS done`,
      { t: t.name },
    );
    if (!again?.done) await exec(`SELECT citus_add_local_table_to_metadata('${t.name}', cascade_via_foreign_keys => true)`);
  }
}

/**
 * Step 7 alone, for a migration after 0049 that (re)creates SQL functions over distributed tables. On plain
 * PostgreSQL, or before 0049 distributed anything, it changes nothing.
 */
export async function plpgsqlOnCitus(db: Sequelize): Promise<void> {
  if (!(await citusInstalled(db))) return;
  await db.transaction(async (transaction) => {
    const q = <T extends object>(sql: string) => db.query<T>(sql, { type: QueryTypes.SELECT, transaction });
    const exec = (sql: string) => db.query(sql, { transaction });
    const distributed = await q<{ tbl: string }>(
      `SELECT logicalrelid::regclass::text AS tbl FROM pg_dist_partition WHERE partmethod = 'h'`,
    );
    await sqlFunctionsToPlpgsql(
      q,
      exec,
      distributed.map((d) => d.tbl),
    );
  });
}

async function sqlFunctionsToPlpgsql(
  q: <T extends object>(sql: string) => Promise<T[]>,
  exec: (sql: string) => Promise<unknown>,
  distributedNames: string[],
): Promise<void> {
  const sqlFunctions = await q<{ def: string; body: string; result: string }>(`
    SELECT pg_get_functiondef(p.oid) AS def, p.prosrc AS body, pg_get_function_result(p.oid) AS result FROM pg_proc p
     WHERE p.pronamespace = 'public'::regnamespace AND p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'sql')`);
  for (const f of sqlFunctions) {
    const body = f.body.trim().replace(/;\s*$/, '');
    if (!distributedNames.some((t) => new RegExp(`\\b${t}\\b`).test(body)) || body.includes(';')) continue;
    const plpgsql = /^(TABLE\(|SETOF )/.test(f.result)
      ? `#variable_conflict use_column\nBEGIN\n  RETURN QUERY ${body};\nEND`
      : f.result === 'void'
        ? `BEGIN\n  PERFORM ${body.replace(/^SELECT\s+/i, '')};\nEND`
        : `BEGIN\n  RETURN (${body});\nEND`;
    const head = f.def.slice(0, f.def.indexOf('AS $function$')).replace(/\bLANGUAGE sql\b/, 'LANGUAGE plpgsql');
    await exec(`${head}AS $function$\n${plpgsql}\n$function$`);
  }
}

const ident = (name: string) => (/^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`);

/** `CREATE UNIQUE INDEX … USING btree (a, b) [INCLUDE …] [WHERE …]` with `col` added as the last key column. */
export function withColumn(indexDef: string, col: string): string {
  const open = indexDef.indexOf('(', indexDef.indexOf(' USING '));
  let depth = 0;
  for (let i = open; i < indexDef.length; i++) {
    if (indexDef[i] === '(') depth++;
    else if (indexDef[i] === ')' && --depth === 0) return `${indexDef.slice(0, i)}, ${col}${indexDef.slice(i)}`;
  }
  throw new Error(`cannot read the key columns of: ${indexDef}`);
}
