import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
// the files patches/trpc-to-openapi+3.3.0.patch rewrites (npm ci applies it): the REST adapter's abort signal
import * as cjs from '../../../node_modules/trpc-to-openapi/dist/cjs/utils/method.js';
// @ts-expect-error the ESM build (the one the server loads) ships no declarations: it is the CJS build's twin
import * as esmBuild from '../../../node_modules/trpc-to-openapi/dist/esm/utils/method.mjs';

const esm = esmBuild as typeof cjs;

/**
 * The REST adapter hands each procedure call an abort signal. The patch builds only that signal (no fetch
 * Request per request); it must keep @trpc/server's rule: aborted when the client goes away before the
 * answer has ended, never after a normal answer.
 */
describe.each([
  ['ESM', esm.getRequestSignal],
  ['CJS', cjs.getRequestSignal],
])('the REST adapter request signal (patched trpc-to-openapi, %s build)', (_build, getRequestSignal) => {
  let server: http.Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  /** A server that captures each request's signal and answers after `answerAfterMs` (or never, when null). */
  async function serve(answerAfterMs: number | null) {
    const signals: AbortSignal[] = [];
    const closed: Promise<void>[] = [];
    server = http.createServer((req, res) => {
      signals.push(getRequestSignal(req, res));
      closed.push(new Promise((resolve) => res.once('close', () => setImmediate(resolve))));
      if (answerAfterMs !== null) setTimeout(() => res.end('{}'), answerAfterMs);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as AddressInfo).port, signals, closed };
  }

  it('stays unaborted when the answer ends normally', async () => {
    const s = await serve(0);
    const res = await fetch(`http://127.0.0.1:${s.port}/`, { method: 'POST', body: '{"a":1}' });
    expect(res.status).toBe(200);
    await res.text();
    await Promise.all(s.closed);
    expect(s.signals).toHaveLength(1);
    expect(s.signals[0].aborted).toBe(false);
  });

  it('aborts when the client disconnects before the answer', async () => {
    const s = await serve(null);
    const req = http.request({ port: s.port, host: '127.0.0.1', method: 'POST' });
    req.on('error', () => undefined);
    req.end('{"a":1}');
    while (s.signals.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(s.signals[0].aborted).toBe(false);
    req.destroy();
    await Promise.all(s.closed);
    expect(s.signals[0].aborted).toBe(true);
  });

  it('builds no fetch Request (its URL, headers and body copy were the cost the patch removes)', async () => {
    const Original = globalThis.Request;
    let built = 0;
    globalThis.Request = class extends Original {
      constructor(...args: ConstructorParameters<typeof Request>) {
        super(...args);
        built++;
      }
    };
    try {
      const s = await serve(0);
      const res = await fetch(`http://127.0.0.1:${s.port}/`, { method: 'POST', body: '{"a":1}' });
      await res.text();
      expect(s.signals).toHaveLength(1);
    } finally {
      globalThis.Request = Original;
    }
    expect(built).toBe(0);
  });
});
