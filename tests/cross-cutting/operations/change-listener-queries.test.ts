import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import pg from 'pg';
import { ChangeListener, LISTENER_APPLICATION_NAME } from '../../../server/db/change-listener.js';
import { runtime } from '../../../server/runtime.js';

/**
 * A LISTEN connection is written to from independent callbacks: barriers (settled), acknowledgement
 * rounds and the answers to other listeners' rounds. pg 8 queues a query sent while another runs
 * (with a deprecation warning); pg 9 refuses it. So a listener sends one query at a time.
 */
const first = new ChangeListener();
const second = new ChangeListener();

beforeAll(async () => {
  for (let i = 0; i < 250 && !(first.isListening() && second.isListening()); i++) await sleep(20);
  if (!first.isListening() || !second.isListening()) throw new Error('the listeners do not listen');
});
afterAll(() => Promise.all([first.stop(), second.stop()]));

type Params = { connectionParameters: { application_name?: string } };
const isListenerConnection = (client: pg.Client) =>
  (client as unknown as Params).connectionParameters.application_name?.startsWith(LISTENER_APPLICATION_NAME) ?? false;

it('never has two queries in flight on a LISTEN connection, however its callers overlap', async () => {
  const inFlight = new Map<pg.Client, number>();
  let most = 0;
  let seen = 0;
  const query = pg.Client.prototype.query;
  const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
    const result = (query as (...a: unknown[]) => unknown).apply(this, args);
    if (!isListenerConnection(this) || !(result instanceof Promise)) return result;
    seen++;
    const now = (inFlight.get(this) ?? 0) + 1;
    inFlight.set(this, now);
    most = Math.max(most, now);
    const ended = () => inFlight.set(this, (inFlight.get(this) ?? 1) - 1);
    result.then(ended, ended);
    return result;
  } as typeof pg.Client.prototype.query);
  const warn = vi.spyOn(runtime().logger, 'warn');
  try {
    const waits: Promise<void>[] = [];
    for (let round = 0; round < 10; round++) {
      // in one turn: a barrier on each, and an acknowledgement round each listener answers on its connection
      waits.push(first.settled(), second.settled(), first.acknowledgedEverywhere(10_000), second.acknowledgedEverywhere(10_000));
      await nextTurn();
    }
    await Promise.all(waits);
    expect(seen).toBeGreaterThanOrEqual(40); // barriers, rounds and answers all went through the connections watched
    expect(most).toBe(1);
    expect(warn).not.toHaveBeenCalled(); // every round was acknowledged by every listener
  } finally {
    spy.mockRestore();
    warn.mockRestore();
  }
});
