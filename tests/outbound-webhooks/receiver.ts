import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real webhook receiver on 127.0.0.1: records every request, answers as the test says. */

export type Received = { at: number; path: string; headers: Record<string, string>; body: string };
export type Answer = { status: number; headers?: Record<string, string> };
export type Responder = (req: Received, nth: number) => Answer | Promise<Answer>;

export type Receiver = {
  url: (path?: string) => string;
  received: Received[];
  /** requests to `path` */
  at: (path: string) => Received[];
  respond: (path: string, responder: Responder) => void;
  /** resolves once `n` requests to `path` arrived (rejects after `timeoutMs`) */
  waitFor: (path: string, n: number, timeoutMs?: number) => Promise<Received[]>;
  close: () => Promise<void>;
};

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const responders = new Map<string, Responder>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      const path = req.url ?? '/';
      const r: Received = { at: Date.now(), path, headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      const nth = received.filter((x) => x.path === path).length;
      const answer = (await responders.get(path)?.(r, nth)) ?? { status: 200 };
      res.writeHead(answer.status, answer.headers);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const at = (path: string) => received.filter((r) => r.path === path);
  return {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    at,
    respond: (path, responder) => void responders.set(path, responder),
    async waitFor(path, n, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      while (at(path).length < n) {
        if (Date.now() > until) throw new Error(`expected ${n} requests to ${path}, got ${at(path).length}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return at(path);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
