import { FONTS, useReportFonts } from './fonts.js';
import PDFDocument from 'pdfkit';
import { clock } from '../../../lib/clock.js';
import { drawMonthlyChart } from './bar-chart.js';
import { groupThousands, money } from './format.js';
import { drawBlock, drawLine } from './script-text.js';
import { CHART_MONTHS, type PdfReportData } from './report-data.js';
import { drawTable, ensureRoom, FOOTER_SPACE, TABLE_ROW_HEIGHT, type Column } from './table.js';

/** Rows a table prints before it says how many more there are (keeps the report to 1–3 pages). */
const MAX_TABLE_ROWS = 20;
const MARGIN = 48;
const INK = '#1f2933';
const MUTED = '#616e7c';
const ACCENT = '#1f4e79';

const count = (n: number) => groupThousands(String(n));

function periodText(q: PdfReportData['query']): string {
  if (q.from && q.to) return `${q.from} to ${q.to}`;
  if (q.from) return `from ${q.from}`;
  if (q.to) return `up to ${q.to}`;
  return 'all dates';
}

/** A section title; `keep` is the height of what follows that should not be split from it. */
function heading(doc: PDFKit.PDFDocument, text: string, note?: string, keep = 30): void {
  ensureRoom(doc, 40 + keep);
  doc.moveDown(0.8);
  doc.font(FONTS.bold).fontSize(12).fillColor(ACCENT).text(text, MARGIN);
  if (note) drawBlock(doc.fillColor(MUTED), note, MARGIN, { weight: 'regular', size: 8, width: doc.page.width - 2 * MARGIN });
  doc.moveDown(0.3);
}

function title(doc: PDFKit.PDFDocument, d: PdfReportData): void {
  const width = doc.page.width - 2 * MARGIN;
  doc.rect(0, 0, doc.page.width, 6).fill(ACCENT);
  doc.font(FONTS.bold).fontSize(20).fillColor(INK).text('Finance report', MARGIN, MARGIN);
  drawBlock(doc.fillColor(INK), d.workspaceName, MARGIN, { weight: 'regular', size: 13, width });
  const filters = [
    `Period: ${periodText(d.query)}`,
    d.query.projectId !== undefined ? `Project: ${d.projectName ?? `#${d.query.projectId}`}` : null,
    d.query.currency ? `Currency: ${d.query.currency}` : null,
  ].filter(Boolean);
  drawBlock(doc.fillColor(MUTED), filters.join('   |   '), MARGIN, { weight: 'regular', size: 10, width });
  doc
    .font(FONTS.regular)
    .fontSize(8)
    .text(
      `Generated ${clock.now().toISOString().slice(0, 16).replace('T', ' ')} UTC. Counts entries that are PENDING, UNDER_REVIEW or COMPLETED.`,
      {
        width,
      },
    );
}

/** What a normalised report leaves out: "3 entries without a rate (JPY -1,000; USD 25.00)". */
function unconvertedText(d: PdfReportData): string {
  const u = d.summary.unconverted;
  if (!u || u.entryCount === 0) return 'Every entry has a rate.';
  const nets = Object.entries(u.amountCentsByCurrency).map(([currency, net]) => `${currency} ${money(net, currency)}`);
  return `${count(u.entryCount)} entries without a rate are left out (net ${nets.join('; ')}).`;
}

function summaryCards(doc: PDFKit.PDFDocument, d: PdfReportData): void {
  const s = d.summary;
  const unit = s.isCurrencyMixed ? null : s.currency;
  heading(
    doc,
    d.normalized ? `Summary in ${s.currency}` : 'Summary',
    d.normalized
      ? `Amounts converted to ${s.currency} at each entry's rate. ${unconvertedText(d)}`
      : s.isCurrencyMixed
        ? `Totals span ${s.currencies.join(', ')}: shown in minor units, not FX-normalised. The currency breakdown below is the figure to rely on.`
        : s.currency
          ? `Amounts in ${s.currency}.`
          : 'No entries in this period.',
    50,
  );
  const cards: [string, string, string?][] = [
    ['Income', money(s.totalIncomeCents, unit)],
    ['Expenses', money(s.totalExpenseCents, unit)],
    ['Net', money(s.netCents, unit), s.netCents < 0 ? '#c62828' : '#2e7d32'],
    ['Entries', count(s.entryCount)],
    ['Average entry', money(s.avgTransactionCents, unit)],
  ];
  const gap = 8;
  const width = (doc.page.width - 2 * MARGIN - gap * (cards.length - 1)) / cards.length;
  const y = doc.y;
  cards.forEach(([label, value, color], i) => {
    const x = MARGIN + i * (width + gap);
    doc.roundedRect(x, y, width, 44, 4).lineWidth(0.75).fillAndStroke('#f5f7fa', '#cfd6de');
    doc
      .font(FONTS.regular)
      .fontSize(8)
      .fillColor(MUTED)
      .text(label, x + 8, y + 8, { width: width - 16, lineBreak: false });
    doc
      .font(FONTS.bold)
      .fontSize(value.length > 14 ? 9 : 12)
      .fillColor(color ?? INK)
      .text(value, x + 8, y + 22, { width: width - 16, lineBreak: false, ellipsis: true });
  });
  doc.x = MARGIN;
  doc.y = y + 44;
}

/** Room to keep with a table's heading: all of a short table, the first rows of a long one. */
const tableHeight = (rows: number) => (Math.min(Math.max(rows, 1), rows > 12 ? 5 : 12) + 1) * TABLE_ROW_HEIGHT + 12;

function limited<T>(rows: T[], render: (row: T) => string[], what: string): { rows: string[][]; note?: string } {
  const shown = rows.slice(0, MAX_TABLE_ROWS).map(render);
  return rows.length > MAX_TABLE_ROWS ? { rows: shown, note: `… and ${rows.length - MAX_TABLE_ROWS} more ${what}` } : { rows: shown };
}

function moreNote(doc: PDFKit.PDFDocument, note?: string): void {
  if (note)
    doc
      .font(FONTS.oblique)
      .fontSize(8)
      .fillColor(MUTED)
      .text(note, MARGIN, doc.y + 3);
}

function currencyTable(doc: PDFKit.PDFDocument, d: PdfReportData): void {
  const columns: Column[] = [
    { header: 'Currency', width: 75 },
    { header: 'Income', width: 115, align: 'right' },
    { header: 'Expenses', width: 115, align: 'right' },
    { header: 'Net', width: 115, align: 'right' },
    { header: 'Entries', width: 79, align: 'right' },
  ];
  const t = limited(
    d.summary.currencyBreakdown,
    (r) => [
      r.currency,
      money(r.incomeCents, r.currency),
      money(r.expenseCents, r.currency),
      money(r.netCents, r.currency),
      count(r.entryCount),
    ],
    'currencies',
  );
  const note = d.normalized ? 'Every counted entry in its own currency, converted or not.' : undefined;
  heading(doc, 'Currency breakdown', note, tableHeight(t.rows.length));
  drawTable(doc, columns, t.rows, 'No entries in this period');
  moreNote(doc, t.note);
}

function chart(doc: PDFKit.PDFDocument, d: PdfReportData): void {
  const unit = d.summary.isCurrencyMixed ? null : d.summary.currency;
  const note = [
    d.chartClipped ? `The last ${CHART_MONTHS} months of the period.` : null,
    unit ? `Amounts in ${unit}.` : d.summary.isCurrencyMixed ? 'Mixed currencies, minor units, not FX-normalised.' : null,
  ]
    .filter(Boolean)
    .join(' ');
  heading(doc, 'Income and expenses per month', note || undefined, 210);
  const y = doc.y + 4;
  drawMonthlyChart(doc, d.months, { x: MARGIN, y, width: doc.page.width - 2 * MARGIN, height: 200, currency: unit });
  doc.x = MARGIN;
  doc.y = y + 204;
}

function projectTable(doc: PDFKit.PDFDocument, d: PdfReportData): void {
  const unit = d.summary.isCurrencyMixed ? null : d.summary.currency;
  const columns: Column[] = [
    { header: 'Project', width: 155 },
    { header: 'Income', width: 95, align: 'right' },
    { header: 'Expenses', width: 95, align: 'right' },
    { header: 'Net', width: 95, align: 'right' },
    { header: 'Entries', width: 59, align: 'right' },
  ];
  const t = limited(
    d.projects,
    (r) => [r.projectName, money(r.totalIncomeCents, unit), money(r.totalExpenseCents, unit), money(r.netCents, unit), count(r.entryCount)],
    'projects',
  );
  heading(doc, 'By project', d.summary.isCurrencyMixed ? 'Mixed currencies: minor units.' : undefined, tableHeight(t.rows.length));
  drawTable(doc, columns, t.rows, 'No entries in this period');
  moreNote(doc, t.note);
}

function partyTable(doc: PDFKit.PDFDocument, d: PdfReportData): void {
  const unit = d.summary.isCurrencyMixed ? null : d.summary.currency;
  const columns: Column[] = [
    { header: 'Party', width: 150 },
    { header: 'Type', width: 75 },
    { header: 'Country', width: 45 },
    { header: 'Income', width: 85, align: 'right' },
    { header: 'Expenses', width: 85, align: 'right' },
    { header: 'Entries', width: 59, align: 'right' },
  ];
  const rows = d.topParties.map((r) => [
    r.partyName,
    r.partyType ? r.partyType.charAt(0) + r.partyType.slice(1).toLowerCase() : '',
    r.country ?? '',
    money(r.totalIncomeCents, unit),
    money(r.totalExpenseCents, unit),
    count(r.entryCount),
  ]);
  heading(
    doc,
    'Top parties',
    'Income counted for its from-party, expenses for their to-party; largest volume first.',
    tableHeight(rows.length),
  );
  drawTable(doc, columns, rows, 'No entries in this period');
}

function footers(doc: PDFKit.PDFDocument, d: PdfReportData): void {
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0; // writing below the margin would otherwise open a new page
    const y = doc.page.height - MARGIN + 12 - FOOTER_SPACE / 2;
    doc
      .font(FONTS.regular)
      .fontSize(7.5)
      .fillColor(MUTED)
      .text(`Page ${i + 1} of ${range.count}`, doc.page.width - MARGIN - 100, y, { width: 100, align: 'right', lineBreak: false });
    drawLine(doc, `${d.workspaceName} · ${periodText(d.query)}`, MARGIN, y, {
      weight: 'regular',
      size: 7.5,
      width: 300,
      align: 'left',
      ellipsis: true,
    });
    doc.page.margins.bottom = bottom;
  }
}

/** The printable report: title, summary, currency breakdown, monthly chart, projects, top parties. */
export function renderReportPdf(d: PdfReportData): PDFKit.PDFDocument {
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    info: {
      Title: `Finance report: ${d.workspaceName.replace(/\p{Cc}/gu, ' ')}`,
      Author: 'Finance Entries Service',
      CreationDate: clock.now(),
    },
  });
  useReportFonts(doc);
  title(doc, d);
  summaryCards(doc, d);
  currencyTable(doc, d);
  chart(doc, d);
  projectTable(doc, d);
  partyTable(doc, d);
  footers(doc, d);
  return doc;
}
