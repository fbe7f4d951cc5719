import { beforeAll, describe, expect, it } from 'vitest';
import { createEntry, entryWorld } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';

/**
 * Regression (found by the OpenAPI fuzzer, tests/cross-cutting/security/fuzz.test.ts): ten valid entries near the
 * 10^15-cent limit sum past 2^53 - 1; the reports answered 500. They now refuse with a 409.
 */
let api: Api;
let token: string;
let workspaceId: number;

beforeAll(async () => {
  api = await startServer();
  const w = await entryWorld(api);
  ({ token, workspaceId } = w);
  for (let i = 0; i < 10; i++) {
    await createEntry(w, { entryType: 'INCOME', amountCents: 1_000_000_000_000_000, entryDate: '2026-03-01' });
  }
});

describe('report totals beyond the safe integer range', () => {
  it('GET /reports/summary and the PDF answer 409 CONFLICT, never 500', async () => {
    for (const path of ['/reports/summary', '/reports/by-project', '/reports/export/pdf']) {
      const res = await api.get(path, { token, query: { workspaceId } });
      expectErrorBody(res, 409, 'CONFLICT');
      expect(res.body.message).toMatch(/2\^53/);
    }
  });

  it('a narrower filter still reports exactly', async () => {
    const res = await api.get('/reports/summary', { token, query: { workspaceId, from: '2027-01-01' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.entryCount).toBe(0);
  });
});
