import { expect, it } from 'vitest';
import { oneAtATime } from '../../../server/lib/one-at-a-time.js';

/** The queue the change listener's connection and the suites' apt-get installs use (server/lib/one-at-a-time.ts). */
const turn = () => new Promise((resolve) => setImmediate(resolve));

it('starts each piece once the one before has settled, and hands each caller its own outcome', async () => {
  const queue = oneAtATime();
  const log: string[] = [];
  let running = 0;
  const piece = (name: string, fails = false) =>
    queue(async () => {
      running++;
      log.push(`start ${name} (${running} running)`);
      await turn();
      await turn();
      running--;
      log.push(`end ${name}`);
      if (fails) throw new Error(`${name} failed`);
      return name;
    });
  const outcomes = await Promise.allSettled([piece('a'), piece('b', true), piece('c')]);
  expect(log).toEqual(['start a (1 running)', 'end a', 'start b (1 running)', 'end b', 'start c (1 running)', 'end c']);
  expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual(['a', 'b failed', 'c']);
});
