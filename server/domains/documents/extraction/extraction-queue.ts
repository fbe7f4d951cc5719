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
/** This process's pg-boss and the ids of its reading workers (null, [] when it runs none). */
export function setExtractionBoss(b: PgBoss | null, workers: string[] = []): void {
  boss = b;
  workerIds = workers;
}

export type ExtractJob = { workspaceId: number; sha256: string };

/**
 * After commit: queue the reading of (workspace, content) and wake this process's workers, which fetch it at
 * once instead of at their next poll (issue 53: the poll is only the fallback, for other instances' uploads and
 * retries); never throws (the sweep is the safety net).
 */
export async function nudgeExtraction(job: ExtractJob): Promise<void> {
  if (!boss) return;
  try {
    await boss.send(EXTRACT_QUEUE, job, { singletonKey: `${job.workspaceId}:${job.sha256}` });
    for (const id of workerIds) boss.notifyWorker(id);
  } catch (err) {
    runtime().logger.warn({ err, ...job }, 'could not queue a document reading (the sweep will)');
  }
}
