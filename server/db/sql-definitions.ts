import { QueryTypes } from 'sequelize';
import { db } from './database.js';

/**
 * The live definition of every SQL function and trigger of the service's schema, as PostgreSQL holds it after
 * all migrations (a function redefined by a later migration appears once, as that one left it). Committed as
 * server/db/sql-definitions.sql, so the current definitions are readable in one place; the test suite
 * (tests/cross-cutting/architecture/sql-definitions.test.ts) fails when the file and the migrations disagree,
 * and `npm run db:definitions` rewrites it.
 */
export async function renderSqlDefinitions(): Promise<string> {
  const functions = await db().query<{ name: string; def: string }>(
    `SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS name, pg_get_functiondef(p.oid) AS def
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'public' AND p.prokind IN ('f', 'p')
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
      ORDER BY p.proname, pg_get_function_identity_arguments(p.oid)`,
    { type: QueryTypes.SELECT },
  );
  const triggers = await db().query<{ name: string; def: string }>(
    `SELECT c.relname || '.' || t.tgname AS name, pg_get_triggerdef(t.oid, true) AS def
       FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE NOT t.tgisinternal AND n.nspname = 'public'
      ORDER BY c.relname, t.tgname`,
    { type: QueryTypes.SELECT },
  );
  const lines = [
    '-- The SQL functions and triggers of the service as the migrations (server/db/migrations) leave them.',
    '-- Generated: npm run db:definitions. Read-only: change them by a new migration, then regenerate.',
    '',
    `-- ${functions.length} functions`,
    '',
    ...functions.flatMap((f) => [`-- ${f.name}`, `${f.def.trim()};`, '']),
    `-- ${triggers.length} triggers`,
    '',
    ...triggers.map((t) => `${t.def};`),
  ];
  return lines.join('\n') + '\n';
}
