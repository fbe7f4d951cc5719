import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import { expectOk } from '../support/entries.js';
import type { RuleWorld } from '../support/factories/index.js';

export async function preview(
  w: RuleWorld,
  body: Record<string, unknown>,
): Promise<{ matched: number; items: { entryId: number; changes: any }[] }> {
  const res = await w.api.post('/rules/preview', { workspaceId: w.workspaceId, ...body }, { token: w.token });
  expectOk(res, 'preview');
  return res.body;
}

/** Every row of the tables an entry lives in, for proving that nothing changed. */
export async function ledgerState(workspaceId: number): Promise<Record<string, unknown[]>> {
  const q = (sql: string) => db().query(sql, { replacements: { ws: workspaceId }, type: QueryTypes.SELECT });
  return {
    entries: await q('SELECT * FROM entries WHERE workspace_id = :ws ORDER BY id'),
    tags: await q('SELECT * FROM entry_tags WHERE workspace_id = :ws ORDER BY entry_id, tag_id'),
    events: await q('SELECT * FROM entry_events WHERE workspace_id = :ws ORDER BY entry_id, seq'),
    documents: await q('SELECT * FROM entry_documents WHERE workspace_id = :ws ORDER BY id'),
    syncs: await q('SELECT * FROM accounting_syncs WHERE workspace_id = :ws ORDER BY id'),
  };
}
