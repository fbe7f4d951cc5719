import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../server/lib/clock.js';
import { runtime } from '../../server/runtime.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { integrationWorld } from '../support/factories/index.js';
import { expectIngestOk, ingest, item } from './helpers.js';

let api: Api;
let configuredLimit: number;
beforeAll(async () => {
  api = await startServer();
  configuredLimit = runtime().config.INGEST_RATE_PER_MINUTE;
});
afterEach(() => {
  runtime().config.INGEST_RATE_PER_MINUTE = configuredLimit;
  clock.reset();
});

describe('POST /api/v1/ingest rate limit (INGEST_RATE_PER_MINUTE per key)', () => {
  it('answers 429 with Retry-After past the limit, per key, until the minute ends', async () => {
    expect(configuredLimit, 'CONTRACT §12 default').toBe(600);
    runtime().config.INGEST_RATE_PER_MINUTE = 3;
    let now = new Date('2026-03-01T10:00:20.000Z');
    clock.set(() => now);
    const a = await integrationWorld(api);
    const b = await integrationWorld(api);
    const body = (id: string) => ({ entries: [item(a.projectIds[0], id)] });

    for (let i = 0; i < 3; i++) expectIngestOk(await ingest(api, a.apiKey, body(`a-${i}`)));
    const limited = await ingest(api, a.apiKey, body('a-3'));
    expectErrorBody(limited, 429, 'TOO_MANY_REQUESTS');
    expect(limited.headers.get('retry-after')).toBe('40');

    // another key has its own window
    expectIngestOk(await ingest(api, b.apiKey, { entries: [item(b.projectIds[0], 'b-0')] }));

    now = new Date('2026-03-01T10:00:59.500Z');
    const stillLimited = await ingest(api, a.apiKey, body('a-4'));
    expectErrorBody(stillLimited, 429, 'TOO_MANY_REQUESTS');
    expect(stillLimited.headers.get('retry-after')).toBe('1');

    // the next minute starts a fresh window; the limited requests wrote nothing
    now = new Date('2026-03-01T10:01:00.000Z');
    const next = await ingest(api, a.apiKey, body('a-3'));
    expectIngestOk(next);
    expect(next.body.results[0].status).toBe('CREATED');
    const list = await api.get('/entries', { token: a.token, query: { workspaceId: a.workspaceId, limit: 100 } });
    expect(list.body.total).toBe(4);
  });

  it('counts in PostgreSQL: parallel requests never get more than the limit through', async () => {
    runtime().config.INGEST_RATE_PER_MINUTE = 5;
    const now = new Date('2026-03-01T11:00:00.000Z');
    clock.set(() => now);
    const w = await integrationWorld(api);
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => ingest(api, w.apiKey, { entries: [item(w.projectIds[0], `p-${i}`)] })),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(5);
    const refused = responses.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(7);
    for (const r of refused) {
      expectErrorBody(r, 429, 'TOO_MANY_REQUESTS');
      expect(r.headers.get('retry-after')).toBe('60');
    }
  });

  it('checks the key before the limit: unknown keys get 401, not 429', async () => {
    runtime().config.INGEST_RATE_PER_MINUTE = 1;
    const w = await integrationWorld(api);
    expectIngestOk(await ingest(api, w.apiKey, { entries: [item(w.projectIds[0], 'one')] }));
    expectErrorBody(await ingest(api, w.apiKey, { entries: [item(w.projectIds[0], 'two')] }), 429, 'TOO_MANY_REQUESTS');
    expectErrorBody(await ingest(api, 'fes_live_AAAAAAAA_' + 'B'.repeat(40), { entries: [] }), 401, 'UNAUTHORIZED');
  });
});
