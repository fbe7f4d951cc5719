import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How long the search for a rule's first date may take before the rule is taken for one that never occurs. */
export const FIRST_DATE_SEARCH_MS = 1_500;

const RRULE_PATH = createRequire(import.meta.url).resolve('rrule');

// CommonJS, evaluated in the worker: the same rule as schedule.ts' ruleOf (DTSTART = startDate 00:00 UTC)
const SEARCH = `
const { parentPort, workerData } = require('node:worker_threads');
const { RRule } = require(workerData.rrulePath);
const start = new Date(workerData.startDate + 'T00:00:00Z');
const rule = new RRule({ ...RRule.parseString(workerData.rrule.toUpperCase()), dtstart: start, tzid: undefined });
const first = rule.after(start, true);
parentPort.postMessage(first ? first.toISOString().slice(0, 10) : null);
`;

export type FirstDate = { found: string | null } | { timedOut: true };

/**
 * The first date of `rrule` from `startDate` (null: none), searched in a worker thread that is stopped after
 * FIRST_DATE_SEARCH_MS. The `rrule` package answers "none" for a contradictory rule only after searching every
 * period up to the year 9999 (seconds of CPU); in the worker that search blocks no request of the instance.
 */
export function searchFirstDate(rrule: string, startDate: string, limitMs = FIRST_DATE_SEARCH_MS): Promise<FirstDate> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(SEARCH, { eval: true, workerData: { rrulePath: RRULE_PATH, rrule, startDate } });
    let timer: NodeJS.Timeout | undefined;
    const settle = (answer: FirstDate | Error) => {
      clearTimeout(timer);
      void worker.terminate();
      if (answer instanceof Error) reject(answer);
      else resolve(answer);
    };
    // the time limit counts from the worker's start, not from the thread's creation (slow under load)
    worker.once('online', () => (timer = setTimeout(() => settle({ timedOut: true }), limitMs)));
    worker.once('message', (date: string | null) => settle({ found: date }));
    worker.once('error', (err) => settle(err));
  });
}
