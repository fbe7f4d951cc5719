import { beforeAll, describe, expect, it } from 'vitest';
import { runtime } from '../../server/runtime.js';
import { startExtractionWorker, SWEEP_QUEUE } from '../../server/domains/documents/extraction/extraction-jobs.js';
import { EXTRACT_QUEUE } from '../../server/domains/documents/extraction/extraction-queue.js';
import { startServer, type Api } from '../support/http.js';
import { entryWorld, type EntryWorld, inboxed, invoiceXml } from '../support/factories/index.js';
import { extraction } from './inbox-helpers.js';

/**
 * CONTRACT §21: extraction runs after commit as background work on pg-boss (shared by every
 * instance) and survives a restart: a reading left PENDING while no worker ran is done when one starts.
 */
let api: Api;
let w: EntryWorld;
beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api);
});

async function until(check: () => Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}
const statusOf = async (id: string) => (await extraction(api, w.token, id)).status as string;

describe('the extraction worker (pg-boss)', () => {
  it('reads uploads after commit, and at start whatever was left PENDING while no worker ran', async () => {
    const early = await inboxed(api, w.token, w.workspaceId, invoiceXml({ number: 'W-1', issueDate: '2026-01-10', totalCents: 1000 }));
    await new Promise((r) => setTimeout(r, 300));
    expect(await statusOf(early.id)).toBe('PENDING'); // no worker: nothing reads it

    let worker = await startExtractionWorker(runtime().config.DATABASE_URL!, { pollingIntervalSeconds: 0.5 });
    try {
      const queues = (await worker.boss.getQueues()).map((q) => [q.name, q.policy]);
      expect(queues).toEqual(
        expect.arrayContaining([
          [EXTRACT_QUEUE, 'stately'],
          [SWEEP_QUEUE, 'short'],
        ]),
      );
      expect((await worker.boss.getSchedules()).map((s) => s.name)).toContain(SWEEP_QUEUE);
      await until(async () => (await statusOf(early.id)) === 'DONE', 'the reading left from before the start');
      const late = await inboxed(api, w.token, w.workspaceId, invoiceXml({ number: 'W-2', issueDate: '2026-01-11', totalCents: 2000 }));
      await until(async () => (await statusOf(late.id)) === 'DONE', 'the reading queued after commit');
      expect(await extraction(api, w.token, late.id)).toMatchObject({ documentNumber: 'W-2', totalCents: 2000 });
    } finally {
      await worker.stop();
    }

    // stopped (a crash, a deploy): the upload still succeeds and its reading waits for the next start
    const meanwhile = await inboxed(api, w.token, w.workspaceId, invoiceXml({ number: 'W-3', issueDate: '2026-01-12', totalCents: 3000 }));
    await new Promise((r) => setTimeout(r, 300));
    expect(await statusOf(meanwhile.id)).toBe('PENDING');
    worker = await startExtractionWorker(runtime().config.DATABASE_URL!, { pollingIntervalSeconds: 0.5 });
    try {
      await until(async () => (await statusOf(meanwhile.id)) === 'DONE', 'the reading after the restart');
    } finally {
      await worker.stop();
    }
  }, 90_000);

  it("an upload's commit wakes the workers: read at once, not at the next poll", async () => {
    const worker = await startExtractionWorker(runtime().config.DATABASE_URL!, { pollingIntervalSeconds: 60 });
    try {
      await new Promise((r) => setTimeout(r, 1_000)); // past the workers' first fetch: the next poll is a minute away
      const started = Date.now();
      const uploads = await Promise.all(
        [1, 2, 3].map((n) =>
          inboxed(api, w.token, w.workspaceId, invoiceXml({ number: `N-${n}`, issueDate: '2026-02-0' + n, totalCents: 100 * n })),
        ),
      );
      for (const upload of uploads) await until(async () => (await statusOf(upload.id)) === 'DONE', 'a woken reading', 15_000);
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await worker.stop();
    }
  }, 60_000);
});
