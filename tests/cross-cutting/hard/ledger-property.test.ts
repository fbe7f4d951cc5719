import { beforeAll, describe, expect, it } from 'vitest';
import { actor } from '../../support/factories.js';
import { startServer, type Api } from '../../support/http.js';
import { propertyOptions, runLedgerProperty } from '../property/ledger-commands.js';

/**
 * Issue 10 / issue 17, long variant of tests/cross-cutting/property/ledger.test.ts: the same model and commands
 * with the `hard` budget (more runs, longer command sequences). Replay a failure with the
 * LEDGER_SEED / LEDGER_PATH it prints.
 */
const OPTIONS = propertyOptions('hard');

let api: Api;
let user: { id: string; token: string };
beforeAll(async () => {
  api = await startServer();
  user = await actor(api);
});

describe('ledger property, long (model-based, real HTTP)', () => {
  it(`service and model agree after every command (${OPTIONS.numRuns} runs × up to ${OPTIONS.maxCommands} commands, seed ${OPTIONS.seed})`, async () => {
    const stats = await runLedgerProperty(api, user, OPTIONS);
    console.info(`[ledger property, long] ${JSON.stringify(stats)}`);
    expect(stats.runs).toBeGreaterThanOrEqual(OPTIONS.numRuns);
    expect(stats.accepted).toBeGreaterThan(0);
    expect(stats.refused).toBeGreaterThan(0);
  }, 3_600_000);
});
