import { availableParallelism } from 'node:os';
import PgBoss from 'pg-boss';
import { QueryTypes } from 'sequelize';
import { db, transaction } from '../../../db/database.js';
import { pgConnectionOf } from '../../../db/hosts.js';
import { withStartupLock } from '../../../db/startup-lock.js';
import { runtime } from '../../../runtime.js';
import { documentStorage } from '../../../storage/document-storage.js';
import { publishMany } from '../../outbound-webhooks/index.js';
import { autoAttachUnchecked } from '../inbox/auto-attach.js';
import { EXTRACT_QUEUE, setExtractionBoss, type ExtractJob, type UploadedFile } from './extraction-queue.js';
import { loadExtraction, presentExtraction, saveOutcome } from './extraction-rows.js';
import { readFile } from './read-file.js';

/**
 * The background reading of stored documents (CONTRACT §21), on pg-boss in the service's own
 * PostgreSQL, shared by every instance:
 * - EXTRACT_QUEUE jobs {workspaceId, sha256} (singletonKey per content: a `stately` queue holds at
 *   most one queued and one running reading of a file) are sent after an upload commits in an instance
 *   that runs no readers, by the sweep, and for the retry of a reading that failed; an instance that runs
 *   readers reads its own uploads itself (localReaders);
 * - SWEEP_QUEUE runs every minute (and once at start): it queues again every PENDING reading that
 *   no job carried (a crash between commit and send, a restart), and lets auto-attach look at the
 *   inbox documents it has not seen yet. The PENDING row, written in the upload's transaction, is
 *   the work that survives a restart.
 */
export const SWEEP_QUEUE = 'documents-extract-sweep';
const SWEEP_CRON = '* * * * *';
/** Readings a storage error kept from running are given up (FAILED) after this many attempts. */
const MAX_ATTEMPTS = 5;
/** Waiting local readings beyond this many keep no bytes in hand (read back from storage when their turn comes). */
const HELD_FILES_MAX = 64;

async function fileBytes(storageKey: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await documentStorage().open(storageKey)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The ids of the workspace's documents (entry documents and inbox documents) holding this content. */
async function documentIdsOf(workspaceId: number, sha256: string): Promise<string[]> {
  const rows = await db().query<{ id: string }>(
    `SELECT id FROM entry_documents WHERE workspace_id = :ws AND sha256 = :sha256
     UNION SELECT id FROM inbox_documents WHERE workspace_id = :ws AND sha256 = :sha256 ORDER BY id`,
    { replacements: { ws: workspaceId, sha256 }, type: QueryTypes.SELECT },
  );
  return rows.map((r) => r.id);
}

/**
 * Reads one file if its reading is PENDING, records the outcome with a `document.extracted` event
 * per document holding it (one transaction), then auto-attaches the inbox documents of that content.
 * `file`: the bytes the upload just stored, when it found the reading PENDING (a local reading: no
 * look-up of the row, no read back from storage).
 */
export async function processExtraction(job: ExtractJob, file?: UploadedFile): Promise<void> {
  const row = file ? null : await loadExtraction(job.workspaceId, job.sha256);
  if (file || row?.status === 'PENDING') {
    let bytes: Buffer | null = file?.bytes ?? null;
    if (row) {
      try {
        bytes = await fileBytes(row.storage_key);
      } catch (err) {
        await db().query('UPDATE document_extractions SET attempts = attempts + 1 WHERE workspace_id = :ws AND sha256 = :sha256', {
          replacements: { ws: job.workspaceId, sha256: job.sha256 },
        });
        if (row.attempts + 1 < MAX_ATTEMPTS) throw err; // pg-boss retries, then the sweep
      }
    }
    const outcome = bytes
      ? await readFile(bytes, file?.mimeType ?? row!.mime_type)
      : ({ status: 'FAILED', reason: 'the stored file could not be read' } as const);
    await transaction(async (tx) => {
      const saved = await saveOutcome(tx, job.workspaceId, job.sha256, outcome);
      if (!saved) return;
      const ids = await documentIdsOf(job.workspaceId, job.sha256);
      await publishMany(
        tx,
        ids.map((id) => ({ workspaceId: job.workspaceId, type: 'document.extracted' as const, object: presentExtraction(id, saved) })),
      );
    });
  }
  await autoAttachUnchecked(job.workspaceId, job.sha256);
}

/** What the sweep queues: PENDING readings, and contents with inbox documents auto-attach has not looked at. */
export async function dueJobs(limit = 500): Promise<ExtractJob[]> {
  const rows = await db().query<{ workspace_id: number; sha256: string }>(
    `(SELECT workspace_id, sha256 FROM document_extractions WHERE status = 'PENDING' ORDER BY created_at LIMIT :limit)
     UNION
     (SELECT workspace_id, sha256 FROM inbox_documents WHERE status = 'UNATTACHED' AND NOT auto_checked ORDER BY created_at LIMIT :limit)`,
    { replacements: { limit }, type: QueryTypes.SELECT },
  );
  return rows.map((r) => ({ workspaceId: r.workspace_id, sha256: r.sha256 }));
}

/** Runs every due job here and now (tests, the demo seed and the bench): returns how many ran. */
export async function drainExtractions(): Promise<number> {
  let ran = 0;
  for (;;) {
    const jobs = await dueJobs(100);
    const before = ran;
    for (const job of jobs) {
      try {
        await processExtraction(job);
        ran++;
      } catch (err) {
        runtime().logger.warn({ err, ...job }, 'document reading failed; it stays due');
      }
    }
    if (jobs.length < 100 || ran === before) return ran;
  }
}

export type ExtractionWorker = { boss: PgBoss; stop: () => Promise<void> };

/**
 * Starts pg-boss on `databaseUrl` with the reading queue, the sweep schedule, the sweep worker and one reading
 * worker per CPU (`concurrency`; a reading waits on storage and PostgreSQL as well as parsing), and four times as
 * many local readers, which read the uploads committed in this process straight after commit (nudgeExtraction),
 * without the queue. The workers poll every `pollingIntervalSeconds` for work queued elsewhere (the sweep,
 * other instances' uploads, retries); a worker that found a job looks again at once.
 */
export async function startExtractionWorker(
  databaseUrl: string,
  opts: { pollingIntervalSeconds?: number; schema?: string; concurrency?: number } = {},
): Promise<ExtractionWorker> {
  const schema = opts.schema ?? 'pgboss';
  // DATABASE_URL may name several hosts (CONTRACT §22): pg-boss's pool then connects to the primary
  const connection = pgConnectionOf(databaseUrl);
  const boss = new PgBoss({ ...connection, schema, max: 3, application_name: 'finance-entries-documents' });
  boss.on('error', (err) => runtime().logger.error({ err }, 'pg-boss error (documents)'));
  // the same turn-taking as the sync scheduler's: pg-boss 10 creates queues without a lock
  await withStartupLock(connection, `pg-boss in ${schema}`, async () => {
    await boss.start();
    await boss.createQueue(EXTRACT_QUEUE, {
      name: EXTRACT_QUEUE,
      policy: 'stately',
      retryLimit: 3,
      retryDelay: 5,
      retryBackoff: true,
      expireInSeconds: 5 * 60,
    });
    await boss.createQueue(SWEEP_QUEUE, { name: SWEEP_QUEUE, policy: 'short', retryLimit: 0 });
    await boss.schedule(SWEEP_QUEUE, SWEEP_CRON, {}, { tz: 'UTC' });
  });
  const workers: string[] = [];
  const send = (job: ExtractJob) => boss.send(EXTRACT_QUEUE, job, { singletonKey: `${job.workspaceId}:${job.sha256}` });
  const sweep = async () => {
    for (const job of await dueJobs()) await send(job);
    for (const id of workers) boss.notifyWorker(id);
  };
  const work = { pollingIntervalSeconds: opts.pollingIntervalSeconds ?? 2, batchSize: 1 };
  const concurrency = opts.concurrency ?? Math.max(2, availableParallelism());
  for (let i = 0; i < concurrency; i++) {
    const self = { id: '' };
    self.id = await boss.work<ExtractJob>(EXTRACT_QUEUE, work, async (jobs) => {
      try {
        for (const job of jobs) await processExtraction(job.data);
      } finally {
        // a worker that found work looks again at once: pg-boss 10's worker otherwise waits out its polling
        // interval after every fetch it was not notified during, so a queue drained at workers ÷ interval
        // (2 per 2 s) once uploads came faster than the wakes (issue 53)
        if (self.id) boss.notifyWorker(self.id);
      }
    });
    workers.push(self.id);
  }
  await boss.work(SWEEP_QUEUE, { pollingIntervalSeconds: work.pollingIntervalSeconds }, sweep);
  // a reading waits on PostgreSQL for most of its time (a dozen round trips to parse's 2 ms): with as few readers as
  // CPUs they fell behind the uploads (300 e-invoices at 10 clients: p95 1.2 s upload → DONE, 0.24 s with 4 per CPU)
  const local = localReaders(concurrency * 4, send);
  setExtractionBoss(boss, workers, local.add);
  await sweep(); // what was left PENDING while no instance ran
  return {
    boss,
    stop: async () => {
      setExtractionBoss(null);
      await local.idle(10_000);
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    },
  };
}

/**
 * The readings of this process's own uploads, `concurrency` at a time, without a round trip through the queue.
 * A reading that throws (storage) goes to pg-boss, whose retries and backoff then apply; one that cannot
 * be queued either stays PENDING for the sweep. A reading queued by the sweep meanwhile finds the row
 * read already and only looks at auto-attach again.
 */
function localReaders(concurrency: number, send: (job: ExtractJob) => Promise<unknown>) {
  // not Lanes (db/lanes.ts): it starts work a turn later (setImmediate: moves the HELD_FILES_MAX count), cannot await work in flight (idle)
  const waiting: { job: ExtractJob; file?: UploadedFile }[] = [];
  const idlers: (() => void)[] = [];
  let running = 0;
  const pump = () => {
    while (running < concurrency && waiting.length > 0) {
      const { job, file } = waiting.shift()!;
      running++;
      processExtraction(job, file)
        .catch(async (err: unknown) => {
          runtime().logger.warn({ err, ...job }, 'document reading failed; queued for a retry');
          await send(job);
        })
        .catch((err: unknown) => runtime().logger.warn({ err, ...job }, 'could not queue a document reading (the sweep will)'))
        .finally(() => {
          running--;
          pump();
          if (running === 0) for (const done of idlers.splice(0)) done();
        });
    }
  };
  return {
    add: (job: ExtractJob, file?: UploadedFile) => {
      // a long wait holds no uploads' bytes in memory: those read them back from storage
      waiting.push({ job, file: waiting.length < HELD_FILES_MAX ? file : undefined });
      pump();
    },
    /** Resolves once the readings under way are done (those waiting stay PENDING for the next start), or after `ms`. */
    idle: (ms: number) => {
      waiting.length = 0;
      if (running === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        idlers.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
