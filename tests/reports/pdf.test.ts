import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actor, buildWorkspace } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { buildDataset, type Dataset } from './dataset.js';
import { ensurePoppler, parsePgm, run } from './poppler.js';

let api: Api;
let d: Dataset;
let popplerReady = false;
const dir = mkdtempSync(path.join(os.tmpdir(), 'report-pdf-'));

beforeAll(async () => {
  // first: a long apt-get run after HTTP calls would leave idle keep-alive sockets to be reset
  popplerReady = ensurePoppler();
  api = await startServer();
  d = await buildDataset(api);
}, 600_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function fetchPdf(query: Record<string, string | number>, token = d.token) {
  const url = new URL('/reports/export/pdf', api.baseUrl);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
  const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

function savePdf(name: string, bytes: Buffer): string {
  const file = path.join(dir, `${name}.pdf`);
  writeFileSync(file, bytes);
  return file;
}

const pageCount = (file: string) => Number(/Pages:\s+(\d+)/.exec(run('pdfinfo', [file]))![1]);

describe('GET /reports/export/pdf', () => {
  it('answers with a PDF attachment', async () => {
    const { res, bytes } = await fetchPdf({ workspaceId: d.workspaceId, from: '2026-12-01', to: '2027-03-31' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="report-${d.workspaceId}-2026-12-01-2027-03-31.pdf"`);
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(bytes.subarray(-6).toString('latin1')).toMatch(/%%EOF\s*$/);
  });

  it('prints the period, summary, currency breakdown, projects and parties on 1–3 pages', async (ctx) => {
    if (!popplerReady) ctx.skip();
    const { bytes } = await fetchPdf({ workspaceId: d.workspaceId, from: '2026-12-01', to: '2027-03-31' });
    const file = savePdf('dataset', bytes);
    const pages = pageCount(file);
    expect(pages).toBeGreaterThanOrEqual(1);
    expect(pages).toBeLessThanOrEqual(3);
    const text = run('pdftotext', ['-layout', file, '-']).replace(/[ \t]+/g, ' ');
    for (const expected of [
      'Finance report',
      'Northwind Trading',
      'Period: 2026-12-01 to 2027-03-31',
      'Summary',
      'Totals span EUR, JPY, USD',
      '5,106', // income in minor units (mixed currencies)
      '3,522', // net
      'Currency breakdown',
      'EUR 0.05 10.00 -9.95 2',
      'JPY 0 333 -333 1',
      'USD 51.01 2.51 48.50 4',
      'Income and expenses per month',
      'By project',
      'Project 1 5,105 1,251 3,854 5',
      'Project 2 1 333 -332 2',
      'Top parties',
      'Globex Person US 5,000 333 2',
      'Unassigned 5 1,000 2',
      `Page 1 of ${pages}`,
    ]) {
      expect(text).toContain(expected);
    }
    // the excluded statuses are not in it
    expect(text).not.toContain('999,999');
  });

  it('renders a first page that is not blank', async (ctx) => {
    if (!popplerReady) ctx.skip();
    const { bytes } = await fetchPdf({ workspaceId: d.workspaceId, from: '2026-12-01', to: '2027-03-31' });
    const file = savePdf('render', bytes);
    run('pdftoppm', ['-gray', '-r', '50', '-f', '1', '-l', '1', '-singlefile', file, path.join(dir, 'page1')]);
    const { width, height, pixels } = parsePgm(readFileSync(path.join(dir, 'page1.pgm')));
    expect(width).toBeGreaterThan(380); // A4 at 50 dpi: 413 × 585
    expect(height).toBeGreaterThan(550);
    let ink = 0;
    for (const p of pixels) if (p < 235) ink++;
    const share = ink / pixels.length;
    expect(share).toBeGreaterThan(0.03);
    expect(share).toBeLessThan(0.6);
    // the chart's bars are solid: some rows of the page's lower half hold long runs of dark pixels
    let darkInLowerHalf = 0;
    for (let y = Math.floor(height / 2); y < height; y++)
      for (let x = 0; x < width; x++) if (pixels[y * width + x] < 160) darkInLowerHalf++;
    expect(darkInLowerHalf).toBeGreaterThan(200);
  });

  it('renders a workspace without entries', async (ctx) => {
    const empty = await buildWorkspace({ name: 'Empty books' });
    const owner = await actor(api, { workspaceId: empty.id });
    const { res, bytes } = await fetchPdf({ workspaceId: empty.id }, owner.token);
    expect(res.status).toBe(200);
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    if (!popplerReady) ctx.skip();
    const text = run('pdftotext', ['-layout', savePdf('empty', bytes), '-']);
    expect(text).toContain('Empty books');
    expect(text).toContain('No entries in this period');
  });

  it('needs entry.export (403), membership (403), a token (401) and a valid query (400)', async () => {
    const noExport = await actor(api, { workspaceId: d.workspaceId, permissions: ['workspace.read'] });
    const stranger = await actor(api, { workspaceId: d.otherWorkspaceId });
    const json = (r: Response, text: string) => ({ status: r.status, body: JSON.parse(text), headers: r.headers, text });
    const call = async (query: Record<string, string | number>, token?: string) => {
      const url = new URL('/reports/export/pdf', api.baseUrl);
      for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
      const r = await fetch(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
      return json(r, await r.text());
    };
    expectErrorBody(await call({ workspaceId: d.workspaceId }, noExport.token), 403, 'FORBIDDEN');
    expectErrorBody(await call({ workspaceId: d.workspaceId }, stranger.token), 403, 'FORBIDDEN');
    expectErrorBody(await call({ workspaceId: d.workspaceId }), 401, 'UNAUTHORIZED');
    expectErrorBody(await call({}, d.token), 400, 'BAD_REQUEST');
    expectErrorBody(await call({ workspaceId: d.workspaceId, from: '2027-02-01', to: '2027-01-01' }, d.token), 400, 'BAD_REQUEST');
    expectErrorBody(await call({ workspaceId: d.workspaceId, currency: 'eur' }, d.token), 400, 'BAD_REQUEST');
  });
});
