import { describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import { postgresErrorOf } from '../../server/lib/errors.js';
import { buildWorkspace } from '../support/factories/index.js';

/** Rows written behind the service's back still cannot break the ledger's references. */
describe('entries: database-level integrity', () => {
  const insertEntry = (workspaceId: number, projectId: number, sourceId: number) =>
    db().query(
      `INSERT INTO entries (workspace_id, project_id, entry_source_id, entry_type, base_currency, amount_cents, entry_date)
       VALUES (:workspaceId, :projectId, :sourceId, 'EXPENSE', 'USD', 100, '2026-02-10')`,
      { replacements: { workspaceId, projectId, sourceId }, type: QueryTypes.INSERT },
    );

  it('an entry naming a workspace that does not exist is refused (through its project reference)', async () => {
    const ws = await buildWorkspace();
    const [{ missing }] = await db().query<{ missing: number }>('SELECT coalesce(max(id), 0) + 1000 AS missing FROM workspaces', {
      type: QueryTypes.SELECT,
    });
    const err = await insertEntry(missing, ws.projectIds[0], ws.sourceId).catch((e: unknown) => e);
    expect(postgresErrorOf(err)?.code).toBe('23503');
  });

  it('an entry whose project belongs to another workspace is refused', async () => {
    const [a, b] = [await buildWorkspace(), await buildWorkspace()];
    const err = await insertEntry(a.id, b.projectIds[0], a.sourceId).catch((e: unknown) => e);
    expect(postgresErrorOf(err)).toMatchObject({ code: '23503', constraint: 'entries_project_id_workspace_id_fkey' });
    await expect(insertEntry(a.id, a.projectIds[0], a.sourceId)).resolves.toBeDefined();
  });
});
