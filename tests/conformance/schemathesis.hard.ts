import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Issue 30: Schemathesis (a third-party conformance fuzzer, pinned in requirements.txt beside this file)
 * against the service and the committed openapi.json, with all its default checks — server errors, status
 * codes, content types, response schemas and headers, negative data rejected, positive data accepted —
 * through every phase (examples, coverage, fuzzing, stateful). scripts/schemathesis.sh installs it into a
 * venv in the cache dir, starts the service on its own embedded PostgreSQL with demo data and runs it;
 * schemathesis.toml says the one thing it changes in a check, and why. Any failure fails this test, with
 * Schemathesis' report of it.
 */

const REPO = path.resolve(import.meta.dirname, '..', '..');
/**
 * Examples per operation of the admin's run: about 18,600 requests, 3 minutes on a 2-core machine. Short runs follow
 * (scripts/schemathesis.sh, each named in RUNS): other callers (no permissions, no token, an app's API key), requests
 * the service must refuse (an unknown query parameter, text/plain bodies, bodies over their limit), the ingest rate
 * limit, the two operations that end a session, stored objects in the states some answers need, and a database that
 * fails (misconfigured: 500; stopped: 503).
 */
const MAX_EXAMPLES = '50';
// 9 runs: about 11 minutes on a quiet 2-core machine; under the rest of test:hard, or another load, up to twice that
const TIMEOUT_MS = 1_500_000;
const RUNS = [
  'admin',
  'without-permissions',
  'without-token',
  'app-key',
  'unknown-query-parameter',
  'ingest-rate-limit',
  'unsupported-media-type',
  'too-large',
  'session-refresh',
  'session-logout',
  'stored-a',
  'stored-b',
  'stored-c',
  'database-misconfigured',
  'database-down',
];

type Outcome = { code: number | string; stdout: string; stderr: string };

function runScript(): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      [path.join(REPO, 'scripts/schemathesis.sh'), MAX_EXAMPLES],
      { cwd: REPO, timeout: TIMEOUT_MS - 30_000, killSignal: 'SIGTERM', maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? ((error as { code?: number | string }).code ?? error.signal ?? 'error') : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * DEBT, not an allowance (issues 49/52/55): documented statuses that no run answers yet. The stored plan now reaches
 * the books', budgets' and plans' 200s and the upload's 413/415 (stop 57). Left: the books' and budgets' 403 for a
 * project-only caller (every run calls as the admin, a permission-less user or a workspace-wide key; a project-limited
 * caller needs a run of its own, as the CLI's Authorization header is the run's), login's 429 and a bank account's 409
 * (reached in earlier runs, not in these). Remove each entry when a run reaches it; a status missing outside this
 * list still fails the test.
 */
const KNOWN_UNREACHED: Record<string, string[]> = {
  'POST /auth/login': ['429'],
  'GET /reports/budget-vs-actual': ['403'],
  'PATCH /bank-accounts/{id}': ['409'],
  'GET /ledger/journal/{id}': ['403'],
  'GET /ledger/accounts/{categoryId}/lines': ['403'],
  'GET /budgets/{id}': ['403'],
};

/** What a reader of a failed run needs: Schemathesis' errors, failures, warnings and summary, or the end of its output. */
function report({ stdout, stderr }: Outcome): string {
  const starts = ['= ERRORS =', '= FAILURES ='].map((title) => stdout.indexOf(title)).filter((i) => i >= 0);
  const first = starts.length ? Math.min(...starts) : -1;
  const body = first >= 0 ? stdout.slice(stdout.lastIndexOf('\n', first) + 1) : stdout.split('\n').slice(-120).join('\n');
  return `${body}\n--- stderr ---\n${stderr.split('\n').slice(-60).join('\n')}`;
}

describe('Schemathesis conformance run', () => {
  it(
    'finds no failure in any operation',
    async () => {
      const outcome = await runScript();
      if (outcome.code !== 0) expect.fail(`scripts/schemathesis.sh exited with ${outcome.code}\n${report(outcome)}`);
      const runs = [...outcome.stdout.matchAll(/^=== Schemathesis run: (.+) ===$/gm)].map((m) => m[1]);
      expect(runs).toEqual(RUNS);
      const closings = outcome.stdout.split('\n').filter((line) => /^=+ .* in [\d.]+s =+$/.test(line));
      // the closing line of each clean run, e.g. "==== 3 warnings in 150.2s ====" (never "N failures" or "errors")
      expect(closings).toHaveLength(RUNS.length);
      for (const line of closings) expect(line).not.toMatch(/failure|error/i);
      expect(outcome.stdout.match(/Test cases:\n\s+\d+ generated, \d+ passed/g)).toHaveLength(RUNS.length);
      const coverage = outcome.stdout.split('\n').find((line) => line.startsWith('status coverage: '));
      expect(coverage, 'the script reports the documented statuses no run reached').toBeDefined();
      const { documentedStatuses, reachedStatuses, missing } = JSON.parse(coverage!.slice('status coverage: '.length));
      console.log(
        `[schemathesis] documented statuses reached: ${reachedStatuses} of ${documentedStatuses}; not reached: ${JSON.stringify(missing)}`,
      );
      // every documented status of every operation was answered in some run, but for the debt listed in KNOWN_UNREACHED
      const unexpected = Object.fromEntries(
        Object.entries(missing as Record<string, string[]>)
          .map(([op, statuses]) => [op, statuses.filter((s) => !KNOWN_UNREACHED[op]?.includes(s))] as const)
          .filter(([, statuses]) => statuses.length > 0),
      );
      expect(unexpected).toEqual({});
    },
    TIMEOUT_MS,
  );
});
