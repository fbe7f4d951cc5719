import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDebianPackages, onPath } from '../support/debian-package.js';
import { actor, buildWorkspace } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';
import { parsePgm, run } from './poppler.js';

/**
 * The PDF report prints every script a workspace may hold (issues 31 and 52): Latin, Greek and
 * Cyrillic in DejaVu Sans; Chinese, Japanese, Korean, Arabic, Hebrew and Devanagari in Noto Sans
 * faces from npm packages, all embedded as subsets; Arabic and Hebrew right to left, Arabic and
 * Devanagari shaped. pdftotext must give every name back as written (in logical order), and the
 * page of the parties table is rendered to PNG (kept in the OS temp folder as report-scripts-parties.png,
 * for a look).
 */

const WORKSPACE = 'Łódź Żółć Spółka';
const PARTIES = {
  latin: 'Müller & Söhne Straße',
  greek: 'Αθηνά Παπαδοπούλου',
  cyrillic: 'Москва Ёлка Щука',
  japanese: '東京商事 カタカナ',
  chinese: '北京贸易有限公司',
  korean: '서울무역 주식회사',
  arabic: 'شركة النور للتجارة',
  hebrew: 'חברת האור',
  devanagari: 'भारत ट्रेडिंग कंपनी',
  mixed: 'مكتب Cairo 2026',
};
const dir = mkdtempSync(path.join(os.tmpdir(), 'report-unicode-'));
let api: Api;
let file: string;

beforeAll(async () => {
  // first: a long apt-get run after HTTP calls would leave idle keep-alive sockets to be reset
  await ensureDebianPackages(['poppler-utils'], () => ['pdftotext', 'pdftoppm', 'pdffonts'].every((b) => onPath(b) !== undefined));
  api = await startServer();
  const ws = await buildWorkspace({ name: WORKSPACE });
  const { token } = await actor(api, { workspaceId: ws.id });
  for (const [i, name] of Object.values(PARTIES).entries()) {
    const party = await api.post('/parties', { workspaceId: ws.id, name, partyType: 'ORGANIZATION' }, { token });
    expect(party.status, party.text).toBe(200);
    const entry = await api.post(
      '/entries',
      {
        projectId: ws.projectIds[0],
        entryType: 'INCOME',
        amountCents: 10_000 * (i + 1),
        baseCurrency: 'USD',
        entryDate: `2026-05-${String(i + 1).padStart(2, '0')}`,
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
  file = path.join(dir, 'scripts.pdf');
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
}, 600_000);

afterAll(() => {
  if (process.env.KEEP_PDF) copyFileSync(file, process.env.KEEP_PDF);
  rmSync(dir, { recursive: true, force: true });
});

// pdftotext marks right-to-left text with U+202B…U+202C and a space, and puts the next cell on its line
const lines = () =>
  run('pdftotext', [file, '-'])
    .replace(/ ?\u202b ?| ?\u202c ?/gu, '\n')
    .split('\n')
    .map((l) => l.trim());

describe('PDF report scripts', () => {
  // (the mixed name: pdftotext gives its runs in the page's order, "Cairo 2026 مكتب"; its order is checked by position below)
  it.each(Object.entries(PARTIES).filter(([script]) => script !== 'mixed'))('prints a %s name as written', (_script, name) => {
    expect(lines()).toContain(name);
  });

  it('prints the workspace name in the title and the footer', () => {
    expect(lines()).toContain(WORKSPACE);
    expect(lines().some((l) => l.startsWith(`${WORKSPACE} · 2026-05-01 to 2026-05-31`))).toBe(true);
  });

  it('lays out right-to-left text right to left, left-to-right words and numbers in it left to right', async () => {
    // where each piece of text sits on the page of the parties (pdf.js: one item per run drawn)
    const pdf = await getDocument({ data: new Uint8Array(readFileSync(file)) }).promise;
    const page = await pdf.getPage(pdf.numPages);
    const items = (await page.getTextContent()).items.flatMap((i) =>
      'str' in i ? [{ text: i.str.replace(/[\p{Cc}\s]/gu, ''), x: i.transform[4] as number }] : [],
    );
    const xOf = (word: string) => {
      const item = items.find((i) => i.text.includes(word));
      expect(item, word).toBeDefined();
      return item!.x;
    };
    // the Arabic word that comes first in the text is the rightmost; "Cairo 2026" is one
    // left-to-right run inside it (rule W7: the number follows a Latin word)
    expect(xOf('شركة')).toBeGreaterThan(xOf('النور'));
    expect(xOf('النور')).toBeGreaterThan(xOf('للتجارة'));
    expect(xOf('חברת')).toBeGreaterThan(xOf('האור'));
    expect(xOf('مكتب')).toBeGreaterThan(xOf('Cairo2026'));
    expect(xOf('भारत')).toBeLessThan(xOf('कंपनी'));
    await pdf.destroy();
  });

  it('embeds every face as a subset with a ToUnicode map, and no standard 14 font', () => {
    const rows = run('pdffonts', [file])
      .split('\n')
      .slice(2)
      .filter((line) => line.trim() !== '');
    const faces = rows.map((row) => /^[A-Z]{6}\+(\S+)/.exec(row)?.[1]);
    for (const face of [
      'DejaVuSans',
      'DejaVuSans-Bold',
      'NotoSansSC-Regular',
      'NotoSansKR-Regular',
      'NotoSansArabic-Regular',
      'NotoSansDevanagari-Regular',
    ])
      expect(faces).toContain(face);
    expect(faces.some((f) => f?.startsWith('NotoSansHebrew'))).toBe(true);
    for (const row of rows) expect(row).toMatch(/ yes +yes +yes /); // embedded, subset, with a ToUnicode map
  });

  it('draws every name (ink in the name cell of its row); the page is kept as report-scripts-parties.png', () => {
    const last = /Pages:\s+(\d+)/.exec(run('pdfinfo', [file]))![1]!;
    run('pdftoppm', ['-png', '-r', '110', '-f', last, '-l', last, '-singlefile', file, path.join(dir, 'parties')]);
    copyFileSync(path.join(dir, 'parties.png'), path.join(os.tmpdir(), 'report-scripts-parties.png'));
    // at 72 dpi a pixel is a point, pdftotext's unit
    run('pdftoppm', ['-gray', '-r', '72', '-f', last, '-l', last, '-singlefile', file, path.join(dir, 'parties')]);
    const { width, pixels } = parsePgm(readFileSync(path.join(dir, 'parties.pgm')));
    const bbox = run('pdftotext', ['-bbox', '-f', last, '-l', last, file, '-']);
    // each party's row is found by its income (100.00 × its place in PARTIES); its name cell is the
    // first column (48 + 4 … 48 + 150 - 4)
    Object.keys(PARTIES).forEach((script, i) => {
      const income = `${i === 9 ? '1,000' : (i + 1) * 100}.00`;
      const m = new RegExp(`yMin="([\\d.]+)" xMax="[\\d.]+" yMax="([\\d.]+)">${income}<`).exec(bbox);
      expect(m, income).not.toBeNull();
      const [y0, y1] = m!.slice(1).map((v) => Math.round(Number(v)));
      let ink = 0;
      for (let y = y0!; y < y1!; y++) for (let x = 52; x < 194; x++) if (pixels[y * width + x]! < 160) ink++;
      expect(ink, script).toBeGreaterThan(30); // a blank cell has none
    });
  });
});
