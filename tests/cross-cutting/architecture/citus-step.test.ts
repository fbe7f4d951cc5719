import { QueryTypes } from 'sequelize';
import { describe, expect, it } from 'vitest';
import { distributeOnCitus, withColumn } from '../../../server/db/citus.js';
import { db } from '../../../server/db/database.js';

/**
 * Migration 0049 (CONTRACT §24): on plain PostgreSQL the Citus step changes nothing. (What it does
 * on Citus is checked against a real cluster by tests/cross-cutting/hard/citus.test.ts.)
 */
describe('the Citus step of the migrations', () => {
  const schema = () =>
    db().query<{ def: string }>(
      `SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) AS def FROM pg_constraint
        WHERE connamespace = 'public'::regnamespace
       UNION ALL SELECT pg_get_indexdef(indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relnamespace = 'public'::regnamespace
       UNION ALL SELECT tgrelid::regclass::text || ' ' || tgname FROM pg_trigger WHERE NOT tgisinternal
       UNION ALL SELECT p.oid::regprocedure::text || ' ' || l.lanname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
        WHERE p.pronamespace = 'public'::regnamespace
       ORDER BY 1`,
      { type: QueryTypes.SELECT },
    );

  it('does nothing on plain PostgreSQL: no key, index, trigger or function changes', async () => {
    const before = await schema();
    expect(before.length).toBeGreaterThan(100);
    expect(await distributeOnCitus(db())).toBe(false);
    expect(await schema()).toEqual(before);
  });

  it('adds the distribution column as the last key column of a unique index, before INCLUDE and WHERE', () => {
    expect(withColumn('CREATE UNIQUE INDEX k ON public.t USING btree (a, b)', 'workspace_id')).toBe(
      'CREATE UNIQUE INDEX k ON public.t USING btree (a, b, workspace_id)',
    );
    expect(
      withColumn(
        "CREATE UNIQUE INDEX k ON public.t USING btree (entry_id, COALESCE(c, '0'::uuid)) WHERE (status = ANY (ARRAY['Q'::text]))",
        'workspace_id',
      ),
    ).toBe(
      "CREATE UNIQUE INDEX k ON public.t USING btree (entry_id, COALESCE(c, '0'::uuid), workspace_id) WHERE (status = ANY (ARRAY['Q'::text]))",
    );
  });
});
