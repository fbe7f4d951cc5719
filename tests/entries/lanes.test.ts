import { describe, expect, it } from 'vitest';
import { Lanes } from '../../server/db/lanes.js';

/** The scheduler ReadBatch and CommitGroup share (server/db/lanes.ts). */
const turn = () => new Promise((resolve) => setImmediate(resolve));

function gate() {
  let open!: () => void;
  const closed = new Promise<void>((resolve) => (open = resolve));
  return { closed, open };
}

/** Lanes over a queue of names: each take runs everything waiting as one piece of work, held until released. */
function queueOn(lanes: number) {
  const waiting: string[] = [];
  const pieces: { names: string[]; release: () => void }[] = [];
  let most = 0;
  const scheduler: Lanes = new Lanes(lanes, () => {
    if (waiting.length === 0) return undefined;
    const names = waiting.splice(0);
    return async () => {
      const g = gate();
      pieces.push({ names, release: g.open });
      most = Math.max(most, scheduler.busy);
      await g.closed;
    };
  });
  const ask = (name: string) => {
    waiting.push(name);
    scheduler.schedule();
  };
  return { scheduler, ask, pieces, waiting, most: () => most };
}

describe('Lanes', () => {
  it('takes what was asked for in one turn as one piece of work, at the end of the turn', async () => {
    const q = queueOn(2);
    q.ask('a');
    q.ask('b');
    expect(q.pieces).toEqual([]); // not before the end of the turn
    await turn();
    expect(q.pieces.map((p) => p.names)).toEqual([['a', 'b']]);
    q.pieces[0].release();
  });

  it('keeps at most `lanes` pieces in flight; what waits meanwhile goes together when a lane frees', async () => {
    const q = queueOn(2);
    q.ask('a');
    await turn();
    q.ask('b');
    await turn();
    q.ask('c');
    await turn();
    q.ask('d');
    await turn();
    expect(q.pieces.map((p) => p.names)).toEqual([['a'], ['b']]);
    expect(q.waiting).toEqual(['c', 'd']);
    expect(q.scheduler.busy).toBe(2);
    q.pieces[1].release();
    await turn();
    expect(q.pieces.map((p) => p.names)).toEqual([['a'], ['b'], ['c', 'd']]);
    q.pieces[0].release();
    q.pieces[2].release();
    await turn();
    expect(q.scheduler.busy).toBe(0);
    expect(q.most()).toBe(2);
  });

  it('a held lane counts as busy until its gate settles, and then takes what waits', async () => {
    const q = queueOn(1);
    const g = gate();
    const held = q.scheduler.hold(g.closed);
    q.ask('a');
    await turn();
    expect(q.pieces).toEqual([]);
    expect(q.scheduler.busy).toBe(1);
    g.open();
    await held;
    expect(q.pieces.map((p) => p.names)).toEqual([['a']]);
    q.pieces[0].release();
  });
});
