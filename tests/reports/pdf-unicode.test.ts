import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actor, buildWorkspace } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';
import { ensurePoppler, run } from './poppler.js';

/**
 * The PDF report prints names as written (issue 31): it embeds DejaVu Sans, so Polish, German,
 * Greek and Cyrillic names come back from pdftotext unchanged; CJK (not embedded) prints as "?".
 */

const WORKSPACE = 'Łódź Żółć Spółka';
const PARTIES = ['Müller & Söhne Straße', 'Αθηνά Παπαδοπούλου', 'Москва Ёлка Щука', '東京商事'];
const dir = mkdtempSync(path.join(os.tmpdir(), 'report-unicode-'));
let api: Api;
let file: string;

beforeAll(async () => {
  if (!ensurePoppler()) throw new Error('pdftotext (poppler-utils) could not be installed');
  api = await startServer();
  const ws = await buildWorkspace({ name: WORKSPACE });
  const { token } = await actor(api, { workspaceId: ws.id });
  for (const [i, name] of PARTIES.entries()) {
    const party = await api.post('/parties', { workspaceId: ws.id, name, partyType: 'ORGANIZATION' }, { token });
    expect(party.status, party.text).toBe(200);
    const entry = await api.post(
      '/entries',
      {
        projectId: ws.projectIds[0],
        entryType: 'INCOME',
        amountCents: 10_000 * (i + 1),
        baseCurrency: 'USD',
        entryDate: '2026-05-0' + (i + 1),
        fromPartyId: party.body.id,
      },
      { token },
    );
    expect(entry.status, entry.text).toBe(200);
  }
  const url = new URL('/reports/export/pdf', api.baseUrl);
  url.search = new URLSearchParams({ workspaceId: String(ws.id), from: '2026-05-01', to: '2026-05-31' }).toString();
  const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  file = path.join(dir, 'unicode.pdf');
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
}, 300_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('PDF report fonts', () => {
  it('round-trips Polish, German, Greek and Cyrillic names through pdftotext', () => {
    const text = run('pdftotext', [file, '-']);
    for (const name of [WORKSPACE, ...PARTIES.slice(0, 3)]) expect(text).toContain(name);
  });

  it('prints a CJK name as "?" per character (no CJK face is embedded)', () => {
    const text = run('pdftotext', [file, '-']);
    expect(text).not.toContain('東京商事');
    expect(text).toContain('????');
  });

  it('embeds its fonts (a DejaVu Sans subset) and uses no standard 14 font', () => {
    const fonts = run('pdffonts', [file]);
    const rows = fonts
      .split('\n')
      .slice(2)
      .filter((line) => line.trim() !== '');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row).toMatch(/^[A-Z]{6}\+DejaVuSans/);
      expect(row).toMatch(/ yes +yes +yes /); // embedded, subset, with a ToUnicode map
    }
  });
});
