import { QueryTypes } from 'sequelize';
import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../server/db/database.js';
import { startServer } from '../support/http.js';
import { buildDataset, report, type Dataset } from './dataset.js';

/**
 * by-tag keeps allocating to the cent when tags change after the entries were created: the
 * ranks it uses (migration 0006) follow every way tags are written.
 */
let d: Dataset;

beforeAll(async () => {
  d = await buildDataset(await startServer());
});

const tagRow = (tagId: number, tagName: string, incomeCents: number, expenseCents: number, entryCount: number) => ({
  tagId,
  tagName,
  totalCents: incomeCents + expenseCents,
  incomeCents,
  expenseCents,
  entryCount,
});

/** Every stored rank equals a fresh row_number() over the entry's tags. */
async function ranksAreFresh(): Promise<void> {
  const stale = await db().query<{ n: number }>(
    `SELECT count(*) AS n FROM entry_tags et
       JOIN (SELECT entry_id, tag_id, row_number() OVER w AS tag_rank, count(*) OVER w AS tag_count FROM entry_tags
             WINDOW w AS (PARTITION BY entry_id ORDER BY tag_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)) r
         ON r.entry_id = et.entry_id AND r.tag_id = et.tag_id
      WHERE (et.tag_rank, et.tag_count) IS DISTINCT FROM (r.tag_rank::int, r.tag_count::int)`,
    { type: QueryTypes.SELECT },
  );
  expect(stale[0].n).toBe(0);
}

describe('by-tag after tag changes', () => {
  it('re-ranks when an entry gets a lower tag id than the ones it had', async () => {
    await ranksAreFresh();
    // E2 251 over [alpha, beta, gamma]: 83 each, remainder 2 to alpha and beta
    const res = await d.api.put(`/entries/${d.entries.E2}/tags`, { tagIds: [d.gamma, d.alpha, d.beta] }, { token: d.token });
    expect(res.status, res.text).toBe(200);
    expect(await report(d, 'by-tag')).toEqual([
      tagRow(d.alpha, 'alpha', 36, 1084, 4),
      tagRow(d.gamma, 'gamma', 34, 416, 4),
      tagRow(d.beta, 'beta', 35, 84, 3),
    ]);
    await ranksAreFresh();
  });

  it('keeps the share of a deleted (archived) tag: history is not rewritten (CONTRACT §4)', async () => {
    const before = await report(d, 'by-tag');
    const res = await d.api.del(`/tags/${d.alpha}`, { token: d.token });
    expect(res.status, res.text).toBe(200);
    expect(await report(d, 'by-tag')).toEqual(before);
    expect(before.map((r: { tagId: number }) => r.tagId)).toContain(d.alpha);
    await ranksAreFresh();
  });

  it('leaves ranks a writer inserted right untouched and repairs wrong ones (migration 0021)', async () => {
    const [low, high] = [Math.min(d.beta, d.gamma), Math.max(d.beta, d.gamma)];
    /** inserts E3's tags with the given ranks, then rolls back: were the rows re-written, and are their ranks fresh? */
    const insertRanked = (values: string) =>
      db()
        .transaction(async (transaction) => {
          await db().query(`DELETE FROM entry_tags WHERE entry_id = $1`, { bind: [d.entries.E3], transaction });
          const inserted = await db().query<{ ctid: string }>(
            `INSERT INTO entry_tags (entry_id, tag_id, workspace_id, tag_rank, tag_count) VALUES ${values} RETURNING ctid::text`,
            { bind: [d.entries.E3, low, high, d.workspaceId], type: QueryTypes.SELECT, transaction },
          );
          // an UPDATE by the statement trigger leaves a new row version at another ctid
          const now = await db().query<{ ctid: string; tag_id: number; tag_rank: number; tag_count: number }>(
            `SELECT ctid::text, tag_id, tag_rank, tag_count FROM entry_tags WHERE entry_id = $1 ORDER BY tag_id`,
            { bind: [d.entries.E3], type: QueryTypes.SELECT, transaction },
          );
          const rewritten = now.filter((r) => !inserted.some((i) => i.ctid === r.ctid)).length;
          const ranks = now.map((r) => [r.tag_id, r.tag_rank, r.tag_count]);
          throw Object.assign(new Error('rollback'), { seen: { rewritten, ranks } });
        })
        .catch((e: { seen?: unknown }) => {
          if (!e.seen) throw e;
          return e.seen;
        });
    const fresh = [
      [low, 1, 2],
      [high, 2, 2],
    ];
    // the create path's way: the ranks computed by the insert itself, no second row version
    expect(await insertRanked('($1, $2, $4, 1, 2), ($1, $3, $4, 2, 2)')).toEqual({ rewritten: 0, ranks: fresh });
    // a writer that leaves them out (or gets them wrong) still ends with fresh ranks
    expect(await insertRanked('($1, $2, $4, 0, 0), ($1, $3, $4, 1, 2)')).toEqual({ rewritten: 2, ranks: fresh });
    await ranksAreFresh();
  });

  it('follows raw SQL writes too (ingest, imports)', async () => {
    // alpha leaves its entries by raw SQL: E1 100 → 50/50, E2 251 → 126/125, E4 5 → 3/2, E6 333 → gamma; E3 untagged
    await db().query(`DELETE FROM entry_tags WHERE tag_id = $1`, { bind: [d.alpha], type: QueryTypes.DELETE });
    expect(await report(d, 'by-tag')).toEqual([tagRow(d.gamma, 'gamma', 52, 458, 4), tagRow(d.beta, 'beta', 53, 126, 3)]);
    await db().query(`INSERT INTO entry_tags (entry_id, tag_id, workspace_id) VALUES ($1, $2, $3), ($4, $2, $3)`, {
      bind: [d.entries.E5, d.beta, d.workspaceId, d.entries.E7],
      type: QueryTypes.INSERT,
    });
    await db().query(`DELETE FROM entry_tags WHERE entry_id = $1 AND tag_id = $2`, {
      bind: [d.entries.E6, d.gamma],
      type: QueryTypes.DELETE,
    });
    // beta gains E5 5000 and E7 1 (income); gamma loses E6 333
    expect(await report(d, 'by-tag')).toEqual([tagRow(d.beta, 'beta', 5054, 126, 5), tagRow(d.gamma, 'gamma', 52, 125, 3)]);
    await ranksAreFresh();
  });
});
