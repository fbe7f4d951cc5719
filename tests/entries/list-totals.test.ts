import { beforeAll, describe, expect, it } from 'vitest';
import { sessionCache } from '../../server/domains/auth/authenticate.js';
import { createEntry, makeTag, entryWorld, type EntryWorld } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';
import { killChangeListener, otherProcess, unannouncedEntryUpdate } from '../support/other-process.js';

/**
 * List totals are kept in memory between requests (server/domains/entries/list-totals.ts);
 * every committed change must show in the very next list, whoever made it. "Another
 * process" here is SQL on a connection of its own, as a second server or an operator would.
 */
let api: Api;
const other = otherProcess();
beforeAll(async () => {
  api = await startServer();
});

const totalOf = async (w: EntryWorld, query: Record<string, string | number> = {}) => {
  const res = await w.api.get('/entries', { token: w.token, query: { workspaceId: w.workspaceId, ...query } });
  expect(res.status).toBe(200);
  return res.body.total as number;
};

async function worldWithEntries(n: number): Promise<EntryWorld & { ids: number[] }> {
  const w = await entryWorld(api);
  const ids: number[] = [];
  for (let i = 0; i < n; i++) ids.push((await createEntry(w, { amountCents: 1_000 + i })).id);
  await expect.poll(() => sessionCache.isListening(), { timeout: 5_000 }).toBe(true);
  return { ...w, ids };
}

describe('GET /entries total', () => {
  it('counts an entry created through the API in the very next list', async () => {
    const w = await worldWithEntries(3);
    expect(await totalOf(w)).toBe(3);
    expect(await totalOf(w)).toBe(3); // kept now
    for (let i = 4; i <= 8; i++) {
      await createEntry(w);
      expect(await totalOf(w)).toBe(i);
    }
  });

  it('follows status, amount and tag changes of every filter asked before', async () => {
    const w = await worldWithEntries(4);
    const tag = { id: await makeTag(api, w.token, w.workspaceId, 'audit') };
    expect(await totalOf(w, { entryStatus: 'CANCELLED' })).toBe(0);
    expect(await totalOf(w, { tagIds: tag.id })).toBe(0);
    expect(await totalOf(w, { amountMin: 5_000 })).toBe(0);

    expect((await api.patch(`/entries/${w.ids[0]}/status`, { status: 'CANCELLED', reason: 'dup' }, { token: w.token })).status).toBe(200);
    expect(await totalOf(w, { entryStatus: 'CANCELLED' })).toBe(1);
    expect((await api.put(`/entries/${w.ids[1]}/tags`, { tagIds: [tag.id] }, { token: w.token })).status).toBe(200);
    expect(await totalOf(w, { tagIds: tag.id })).toBe(1);
    expect((await api.put(`/entries/${w.ids[1]}/tags`, { tagIds: [] }, { token: w.token })).status).toBe(200);
    expect(await totalOf(w, { tagIds: tag.id })).toBe(0);
    expect((await api.patch(`/entries/${w.ids[2]}`, { amountCents: 9_000 }, { token: w.token })).status).toBe(200);
    expect(await totalOf(w, { amountMin: 5_000 })).toBe(1);
  });

  it('sees changes committed by another process at once, and only thanks to the trigger', async () => {
    const w = await worldWithEntries(3);
    expect(await totalOf(w, { isReconciled: 'true' })).toBe(0);
    await other.sql('UPDATE entries SET is_reconciled = true, reconciled_at = now() WHERE id = $1', [w.ids[0]]);
    expect(await totalOf(w, { isReconciled: 'true' })).toBe(1);
    await sessionCache.settled(); // no change in flight any more: the next count is kept
    expect(await totalOf(w, { isReconciled: 'true' })).toBe(1);

    // the same change with the notifying trigger switched off is NOT seen: the total is kept
    await unannouncedEntryUpdate(other, 'UPDATE entries SET is_reconciled = true, reconciled_at = now() WHERE id = $1', [w.ids[1]]);
    expect(await totalOf(w, { isReconciled: 'true' })).toBe(1);
    // any later change of the workspace drops it again
    await other.sql('UPDATE entries SET description = description WHERE id = $1', [w.ids[2]]);
    expect(await totalOf(w, { isReconciled: 'true' })).toBe(2);
  });

  it('drops every kept total when its LISTEN connection is lost (changes may have been missed)', async () => {
    const w = await worldWithEntries(2);
    expect(await totalOf(w, { entryStatus: 'CANCELLED' })).toBe(0);
    await killChangeListener(other, w.token);
    await unannouncedEntryUpdate(other, "UPDATE entries SET entry_status = 'CANCELLED', status_reason = 'x' WHERE id = $1", [w.ids[0]]);
    expect(await totalOf(w, { entryStatus: 'CANCELLED' })).toBe(1);
  });
});
