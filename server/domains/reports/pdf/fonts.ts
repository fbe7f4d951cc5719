import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * The report's typefaces, embedded (as subsets: pdfkit writes only the glyphs a document uses) in
 * every PDF so that names print as written, whatever script a workspace holds them in:
 * - DejaVu Sans (fonts/, with its licence) for Latin with its extensions, Greek, Cyrillic,
 *   punctuation, digits and currency signs: the face of everything the report writes itself;
 * - Noto Sans from npm packages (OFL-1.1; installed by `npm ci`) for the other scripts:
 *   Hebrew (@fontsource/noto-sans-hebrew), Arabic (@expo-google-fonts/noto-sans-arabic),
 *   Devanagari (@expo-google-fonts/noto-sans-devanagari), Chinese and Japanese kana
 *   (@expo-google-fonts/noto-sans-sc), Hangul (@expo-google-fonts/noto-sans-kr).
 * Arabic and Devanagari are shaped by pdfkit's fontkit from the fonts' OpenType tables (joining
 * forms, ligatures, conjuncts, reordered vowel signs); script-text.ts splits a text into runs of
 * one face and orders them right to left where the Unicode bidirectional algorithm says so.
 * The Noto files are read from disk only when a document first prints their script.
 */
export const FONTS = { regular: 'DejaVuSans', bold: 'DejaVuSans-Bold', oblique: 'DejaVuSans-Oblique' } as const;

export type Weight = keyof typeof FONTS;
export type Script = 'base' | 'hebrew' | 'arabic' | 'devanagari' | 'han' | 'hangul';

/** DejaVu's ascender (1901 of 2048 units), in pdfkit's thousandths of the font size: the line's baseline. */
export const BASE_ASCENDER = (1901 / 2048) * 1000;

const DEJAVU: Record<Weight, string> = {
  regular: 'DejaVuSans.ttf',
  bold: 'DejaVuSans-Bold.ttf',
  oblique: 'DejaVuSans-Oblique.ttf',
};

// [regular, bold] package paths; the oblique prints upright in these scripts. WOFF, not WOFF2, for
// Hebrew: fontkit subsets a WOFF2's transformed glyf table into empty outlines
const NOTO: Record<Exclude<Script, 'base'>, [string, string]> = {
  hebrew: [
    '@fontsource/noto-sans-hebrew/files/noto-sans-hebrew-hebrew-400-normal.woff',
    '@fontsource/noto-sans-hebrew/files/noto-sans-hebrew-hebrew-700-normal.woff',
  ],
  arabic: [
    '@expo-google-fonts/noto-sans-arabic/400Regular/NotoSansArabic_400Regular.ttf',
    '@expo-google-fonts/noto-sans-arabic/700Bold/NotoSansArabic_700Bold.ttf',
  ],
  devanagari: [
    '@expo-google-fonts/noto-sans-devanagari/400Regular/NotoSansDevanagari_400Regular.ttf',
    '@expo-google-fonts/noto-sans-devanagari/700Bold/NotoSansDevanagari_700Bold.ttf',
  ],
  han: [
    '@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf',
    '@expo-google-fonts/noto-sans-sc/700Bold/NotoSansSC_700Bold.ttf',
  ],
  hangul: [
    '@expo-google-fonts/noto-sans-kr/400Regular/NotoSansKR_400Regular.ttf',
    '@expo-google-fonts/noto-sans-kr/700Bold/NotoSansKR_700Bold.ttf',
  ],
};

/** The registered name of a script's face at a weight. */
export const fontName = (script: Script, weight: Weight): string =>
  script === 'base' ? FONTS[weight] : `${script}-${weight === 'bold' ? 'bold' : 'regular'}`;

// under tsx the fonts sit beside this file; a tsc build (dist/server/…) does not copy them, so
// its modules read them from the source tree
const DIRS = ['./fonts/', '../../../../../server/domains/reports/pdf/fonts/'].map((d) => fileURLToPath(new URL(d, import.meta.url)));
const require = createRequire(import.meta.url);

const bytes = new Map<string, Buffer>();

function fontBytes(script: Script, weight: Weight): Buffer {
  const name = fontName(script, weight);
  const cached = bytes.get(name);
  if (cached) return cached;
  let file: string;
  if (script === 'base') {
    const dir = DIRS.find((d) => existsSync(d + DEJAVU[weight]));
    if (!dir) throw new Error(`The report fonts are missing (looked in ${DIRS.join(', ')})`);
    file = dir + DEJAVU[weight];
  } else {
    file = require.resolve(NOTO[script][weight === 'bold' ? 1 : 0]);
  }
  const read = readFileSync(file);
  bytes.set(name, read);
  return read;
}

const registered = new WeakMap<PDFKit.PDFDocument, Set<string>>();

/** Selects a script's face on a document, registering it on first use. */
export function useFont(doc: PDFKit.PDFDocument, script: Script, weight: Weight): PDFKit.PDFDocument {
  const name = fontName(script, weight);
  let names = registered.get(doc);
  if (!names) registered.set(doc, (names = new Set()));
  if (!names.has(name)) {
    doc.registerFont(name, fontBytes(script, weight));
    names.add(name);
  }
  return doc.font(name);
}

/** Registers the DejaVu faces on a document and selects the regular one. */
export function useReportFonts(doc: PDFKit.PDFDocument): void {
  for (const weight of Object.keys(FONTS) as Weight[]) useFont(doc, 'base', weight);
  doc.font(FONTS.regular);
}

type Ranges = [from: number, to: number][];

/** What DejaVu (the subset in fonts/) covers. */
const BASE: Ranges = [
  [0x20, 0x7e],
  [0xa0, 0x24f],
  [0x259, 0x259],
  [0x2b0, 0x2ff],
  [0x300, 0x36f],
  [0x370, 0x3ff],
  [0x400, 0x52f],
  [0x1e00, 0x1eff],
  [0x2000, 0x206f],
  [0x20a0, 0x20cf],
  [0x2100, 0x215f],
  [0x2190, 0x21ff],
  [0x2212, 0x2212],
  [0x2260, 0x2260],
  [0x2264, 0x2265],
];

const RANGES: [Exclude<Script, 'base'>, Ranges][] = [
  [
    'hebrew',
    [
      [0x590, 0x5ff],
      [0xfb1d, 0xfb4f],
    ],
  ],
  [
    'arabic',
    [
      [0x600, 0x6ff],
      [0x750, 0x77f],
      [0x870, 0x8ff],
      [0xfb50, 0xfdff],
      [0xfe70, 0xfefe],
    ],
  ],
  [
    'devanagari',
    [
      [0x900, 0x97f],
      [0xa8e0, 0xa8ff],
      [0x1cd0, 0x1cff],
    ],
  ],
  [
    'hangul',
    [
      [0x1100, 0x11ff],
      [0x3130, 0x318f],
      [0xa960, 0xa97f],
      [0xac00, 0xd7ff],
      [0xffa0, 0xffdc],
    ],
  ],
  [
    'han',
    [
      [0x2e80, 0x2fdf],
      [0x3000, 0x30ff],
      [0x3100, 0x312f],
      [0x31a0, 0x31ff],
      [0x3200, 0x33ff],
      [0x3400, 0x4dbf],
      [0x4e00, 0x9fff],
      [0xf900, 0xfaff],
      [0xfe30, 0xfe4f],
      [0xff00, 0xff9f],
      [0xffe0, 0xffef],
      [0x20000, 0x2ffff],
    ],
  ],
];

const within = (cp: number, ranges: Ranges) => ranges.some(([from, to]) => cp >= from && cp <= to);

/** The face a character prints in, or null when none of the report's fonts has it. */
export function scriptOf(char: string): Script | null {
  const cp = char.codePointAt(0)!;
  for (const [script, ranges] of RANGES) if (within(cp, ranges)) return script;
  return within(cp, BASE) ? 'base' : null;
}
