import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderSqlDefinitions } from '../../../server/db/sql-definitions.js';

/**
 * Issue 36: the current definition of each SQL function and trigger is readable in one place,
 * server/db/sql-definitions.sql, generated from the migrated database. This test keeps it current:
 * it fails when a migration changes a function or trigger and the file was not regenerated
 * (`npm run db:definitions` runs this file with SQL_DEFINITIONS_WRITE=1 to rewrite it).
 */
const FILE = path.resolve('server/db/sql-definitions.sql');

describe('server/db/sql-definitions.sql', () => {
  it('is what the migrations leave in the database: every function and trigger, each at its latest definition', async () => {
    const live = await renderSqlDefinitions();
    if (process.env.SQL_DEFINITIONS_WRITE === '1') writeFileSync(FILE, live);
    expect(readFileSync(FILE, 'utf8'), 'server/db/sql-definitions.sql is stale: run npm run db:definitions').toBe(live);
    // the ledger's own guards are among them: the closed-period rule (0019, 0023), the tags' ranks (0006 → 0021), the match balance (0024)
    for (const name of ['entry_write_closed_period', 'entry_tags_rerank', 'bank_match_enforce']) expect(live).toContain(`-- ${name}(`);
  });
});
