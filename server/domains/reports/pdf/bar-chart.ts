import { FONTS } from './fonts.js';
import type { TimelineRow } from '../../../../shared/contracts/reports.js';
import { compactAmount, monthName } from './format.js';

export const INCOME_COLOR = '#2e7d32';
export const EXPENSE_COLOR = '#c62828';
const AXIS_COLOR = '#52606d';
const GRID_COLOR = '#e4e7eb';

/** A round axis maximum (1, 2, 2.5 or 5 × 10^k) at or above `max`, and its tick step. */
export function niceScale(max: number, ticks = 5): { top: number; step: number } {
  if (max <= 0) return { top: ticks, step: 1 };
  const raw = max / ticks;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw)!;
  return { top: step * ticks, step };
}

/**
 * Income and expense bars per month, side by side, drawn as vector paths (no raster),
 * with a value axis, grid lines, month labels (the year under each January and the first
 * month) and a legend. `currency` null labels the axis in minor units.
 */
export function drawMonthlyChart(
  doc: PDFKit.PDFDocument,
  months: TimelineRow[],
  opts: { x: number; y: number; width: number; height: number; currency: string | null },
): void {
  const axisWidth = 46;
  const labelHeight = 24;
  const legendHeight = 16;
  const plot = {
    x: opts.x + axisWidth,
    y: opts.y + legendHeight,
    width: opts.width - axisWidth,
    height: opts.height - labelHeight - legendHeight,
  };

  // legend
  doc.font(FONTS.regular).fontSize(8);
  let lx = plot.x + plot.width - 130;
  for (const [label, color] of [
    ['Income', INCOME_COLOR],
    ['Expense', EXPENSE_COLOR],
  ] as const) {
    doc.rect(lx, opts.y + 2, 9, 9).fill(color);
    doc.fillColor(AXIS_COLOR).text(label, lx + 13, opts.y + 2.5, { lineBreak: false });
    lx += 65;
  }

  const max = Math.max(0, ...months.flatMap((m) => [m.incomeCents, m.expenseCents]));
  const { top, step } = niceScale(max);
  const yOf = (v: number) => plot.y + plot.height - (v / top) * plot.height;

  // grid and value axis
  doc.fontSize(7);
  for (let v = 0; v <= top + step / 2; v += step) {
    const y = yOf(v);
    doc
      .moveTo(plot.x, y)
      .lineTo(plot.x + plot.width, y)
      .lineWidth(0.5)
      .strokeColor(v === 0 ? AXIS_COLOR : GRID_COLOR)
      .stroke();
    doc
      .fillColor(AXIS_COLOR)
      .text(compactAmount(v, opts.currency), opts.x, y - 3.5, { width: axisWidth - 6, align: 'right', lineBreak: false });
  }
  doc
    .moveTo(plot.x, plot.y)
    .lineTo(plot.x, plot.y + plot.height)
    .lineWidth(0.5)
    .strokeColor(AXIS_COLOR)
    .stroke();

  if (months.length === 0) {
    doc
      .fontSize(9)
      .fillColor(AXIS_COLOR)
      .text('No entries in this period', plot.x, plot.y + plot.height / 2 - 5, { width: plot.width, align: 'center' });
    return;
  }

  // bars
  const slot = plot.width / months.length;
  const barWidth = Math.max(1, Math.min(18, slot * 0.36));
  months.forEach((m, i) => {
    const centre = plot.x + slot * i + slot / 2;
    const bars = [
      [m.incomeCents, INCOME_COLOR, centre - barWidth - 0.5],
      [m.expenseCents, EXPENSE_COLOR, centre + 0.5],
    ] as const;
    for (const [value, color, x] of bars) {
      if (value <= 0) continue;
      const h = Math.max(0.75, (value / top) * plot.height);
      doc.rect(x, plot.y + plot.height - h, barWidth, h).fill(color);
    }
    const labelY = plot.y + plot.height + 4;
    doc.fontSize(months.length > 16 ? 6 : 7).fillColor(AXIS_COLOR);
    doc.text(monthName(m.period), centre - slot / 2, labelY, { width: slot, align: 'center', lineBreak: false });
    if (i === 0 || m.period.endsWith('-01')) {
      doc.text(m.period.slice(0, 4), centre - slot / 2 - 10, labelY + 9, { width: slot + 20, align: 'center', lineBreak: false });
    }
  });
}
