import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as an emulator saw it. */
export type SeenRequest = {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: any;
};

/**
 * A fault the next matching request(s) get instead of the normal answer: an HTTP status with a
 * body, a delay (to make the caller time out), a dropped connection, or a redirect.
 */
export type Fault = {
  match?: (r: SeenRequest) => boolean;
  times?: number;
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
  drop?: boolean;
};

export type Reply = { status: number; body?: unknown; headers?: Record<string, string>; text?: string };
export type Handler = (r: SeenRequest) => Reply | Promise<Reply>;

export type EmulatorServer = {
  baseUrl: string;
  port: number;
  requests: SeenRequest[];
  inject: (fault: Fault) => void;
  clearFaults: () => void;
  close: () => Promise<void>;
};

/** A real HTTP server on 127.0.0.1 and a random port: records every request, applies injected faults, then `handle`. */
export async function startEmulatorServer(handle: Handler): Promise<EmulatorServer> {
  const requests: SeenRequest[] = [];
  let faults: (Fault & { left: number })[] = [];
  const sockets = new Set<import('node:net').Socket>();

  const respond = (res: ServerResponse, reply: Reply) => {
    const text = reply.text ?? (reply.body === undefined ? '' : JSON.stringify(reply.body));
    res.writeHead(reply.status, {
      ...(reply.text === undefined && reply.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...reply.headers,
    });
    res.end(text);
  };

  const server = http.createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://emulator.local');
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = undefined;
      const type = req.headers['content-type'] ?? '';
      if (text && type.includes('json')) {
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
      } else if (text && type.includes('x-www-form-urlencoded')) body = Object.fromEntries(new URLSearchParams(text));
      const seen: SeenRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        text,
        body,
      };
      requests.push(seen);
      const fault = faults.find((f) => f.left > 0 && (!f.match || f.match(seen)));
      try {
        if (fault) {
          fault.left--;
          faults = faults.filter((f) => f.left > 0);
          if (fault.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
          if (fault.drop) {
            req.socket.destroy();
            return;
          }
          if (fault.status) {
            if (!res.destroyed) respond(res, { status: fault.status, body: fault.body, headers: fault.headers });
            return;
          }
        }
        const reply = await handle(seen);
        if (!res.destroyed) respond(res, reply);
      } catch (err) {
        if (!res.destroyed) respond(res, { status: 500, body: { error: String(err) } });
      }
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    requests,
    inject: (fault) => faults.push({ ...fault, left: fault.times ?? 1 }),
    clearFaults: () => {
      faults = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
