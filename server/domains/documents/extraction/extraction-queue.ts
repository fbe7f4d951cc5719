import type PgBoss from 'pg-boss';
import { runtime } from '../../../runtime.js';

/**
 * The hand-off from a committed upload to the background reading. The rows PENDING in
 * document_extractions are the durable work; this only makes it start at once when this process
 * runs the worker (a lost nudge is picked up by the sweep, see extraction-jobs.ts).
 */
export const EXTRACT_QUEUE = 'documents-extract';

let boss: PgBoss | null = null;
let workerIds: string[] = [];
let readHere: ((job: ExtractJob, file?: UploadedFile) => void) | null = null;
/**
 * This process's pg-boss and the ids of its reading workers (null, [] when it runs none), and `local`: its own
 * readers, which take the readings of uploads committed here directly (null when it runs none).
 */
export function setExtractionBoss(
  b: PgBoss | null,
  workers: string[] = [],
  local: ((job: ExtractJob, file?: UploadedFile) => void) | null = null,
): void {
  boss = b;
  workerIds = workers;
  readHere = local;
}

export type ExtractJob = { workspaceId: number; sha256: string };
/** The bytes an upload just stored and their sniffed type, handed to a local reading (never queued). */
export type UploadedFile = { bytes: Buffer; mimeType: string };

/**
 * After commit: the reading of (workspace, content) starts at once. A process that runs readers reads its own
 * uploads itself, with no round trip through pg-boss (send, fetch, complete: three statements a document, and
 * the queue's poll; issue 53), failures going to pg-boss for its retries. Otherwise it queues the reading and
 * wakes this process's workers. `file`: the upload's bytes, when it found the reading PENDING (read from memory,
 * not from storage). Never throws: the PENDING row and the sweep are the safety net.
 */
export async function nudgeExtraction(job: ExtractJob, file?: UploadedFile): Promise<void> {
  if (readHere) return readHere(job, file);
  if (!boss) return;
  try {
    await boss.send(EXTRACT_QUEUE, job, { singletonKey: `${job.workspaceId}:${job.sha256}` });
    for (const id of workerIds) boss.notifyWorker(id);
  } catch (err) {
    runtime().logger.warn({ err, ...job }, 'could not queue a document reading (the sweep will)');
  }
}
