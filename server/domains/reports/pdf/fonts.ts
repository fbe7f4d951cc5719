import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The report's typeface: DejaVu Sans (fonts/, with its licence), embedded in every PDF so that
 * names print as written. The files are subsets of Debian's fonts-dejavu-core, holding the
 * ranges PRINTABLE names below (Latin with its extensions, Greek, Cyrillic, punctuation,
 * currency signs): about a tenth of the full files. CJK is left out: a CJK face is 5–16 MB, out
 * of proportion for this report; such characters print as "?".
 */
export const FONTS = { regular: 'DejaVuSans', bold: 'DejaVuSans-Bold', oblique: 'DejaVuSans-Oblique' } as const;

const FILES: Record<string, string> = {
  [FONTS.regular]: 'DejaVuSans.ttf',
  [FONTS.bold]: 'DejaVuSans-Bold.ttf',
  [FONTS.oblique]: 'DejaVuSans-Oblique.ttf',
};

// under tsx the fonts sit beside this file; a tsc build (dist/server/…) does not copy them, so
// its modules read them from the source tree
const DIRS = ['./fonts/', '../../../../../server/domains/reports/pdf/fonts/'].map((d) => fileURLToPath(new URL(d, import.meta.url)));

let loaded: [name: string, bytes: Buffer][] | null = null;

function fontFiles(): [name: string, bytes: Buffer][] {
  if (loaded) return loaded;
  const dir = DIRS.find((d) => existsSync(d + FILES[FONTS.regular]!));
  if (!dir) throw new Error(`The report fonts are missing (looked in ${DIRS.join(', ')})`);
  loaded = Object.entries(FILES).map(([name, file]) => [name, readFileSync(dir + file)]);
  return loaded;
}

/** Registers the embedded fonts on a document and selects the regular face. */
export function useReportFonts(doc: PDFKit.PDFDocument): void {
  for (const [name, bytes] of fontFiles()) doc.registerFont(name, bytes);
  doc.font(FONTS.regular);
}

/** What the embedded fonts cover; anything else (CJK, emoji, controls) prints as "?". */
const OUTSIDE_FONTS =
  // eslint-disable-next-line no-misleading-character-class -- combining marks (U+0300–036F) are kept one code point at a time, on purpose
  /[^\u0020-\u007e\u00a0-\u024f\u0259\u02b0-\u02ff\u0300-\u036f\u0370-\u03ff\u0400-\u052f\u1e00-\u1eff\u2000-\u206f\u20a0-\u20cf\u2100-\u215f\u2190-\u21ff\u2212\u2260\u2264\u2265]/gu;

export const printable = (text: string): string => text.replace(OUTSIDE_FONTS, '?');
