import type PgBoss from 'pg-boss';
import { runtime } from '../../../runtime.js';

/**
 * The hand-off from a committed upload to the background reading. The rows PENDING in
 * document_extractions are the durable work; this only makes it start at once when this process
 * runs the worker (a lost nudge is picked up by the sweep, see extraction-jobs.ts).
 */
export const EXTRACT_QUEUE = 'documents-extract';

let boss: PgBoss | null = null;
export const setExtractionBoss = (b: PgBoss | null) => (boss = b);

export type ExtractJob = { workspaceId: number; sha256: string };

/** After commit: queue the reading of (workspace, content); never throws (the sweep is the safety net). */
export async function nudgeExtraction(job: ExtractJob): Promise<void> {
  if (!boss) return;
  try {
    await boss.send(EXTRACT_QUEUE, job, { singletonKey: `${job.workspaceId}:${job.sha256}` });
  } catch (err) {
    runtime().logger.warn({ err, ...job }, 'could not queue a document reading (the sweep will)');
  }
}
