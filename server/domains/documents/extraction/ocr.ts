import { spawn, spawnSync } from 'node:child_process';
import type { ReadOutcome } from './fields.js';
import { readTextFields } from './text-fields.js';

/** OCR confidences are text confidences scaled down: what a scan reads is less sure than a text layer. */
const OCR_SCALE = 0.8;
const TIMEOUT_MS = 60_000;
/** Image types tesseract (through leptonica) reads. */
export const OCR_TYPES = new Set(['image/png', 'image/jpeg', 'image/tiff', 'image/gif', 'image/webp']);

let installed: boolean | undefined;
/** Whether Debian's `tesseract` is on the PATH (asked once per process). */
export function ocrAvailable(): boolean {
  installed ??= spawnSync('tesseract', ['--version'], { stdio: 'ignore', timeout: 10_000 }).status === 0;
  return installed;
}

/** Tests only: ask again (after installing tesseract). */
export const forgetOcrAvailability = () => (installed = undefined);

function runTesseract(bytes: Uint8Array): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('tesseract', ['stdin', 'stdout', '--psm', '4'], { stdio: ['pipe', 'pipe', 'pipe'], timeout: TIMEOUT_MS });
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(Buffer.concat(out).toString('utf8')) : reject(new Error(`tesseract exited with ${code}`)),
    );
    child.stdin.on('error', () => undefined); // tesseract may exit before reading everything from a bad image
    child.stdin.end(Buffer.from(bytes));
  });
}

/** An image read by OCR when tesseract is installed (NONE when not); FAILED when tesseract cannot read it. */
export async function readImage(bytes: Uint8Array): Promise<ReadOutcome> {
  if (!ocrAvailable()) return { status: 'NONE', reason: 'no OCR engine is installed (tesseract)' };
  let text: string;
  try {
    text = await runTesseract(bytes);
  } catch (err) {
    return { status: 'FAILED', reason: `OCR failed (${err instanceof Error ? err.message : String(err)})`.slice(0, 500) };
  }
  const lines = text.split(/\r?\n/).map((t) => ({ text: t.replace(/ {2,}/g, '\t') }));
  if (!lines.some((l) => /[A-Za-z0-9]{2}/.test(l.text))) return { status: 'NONE', reason: 'OCR found no text' };
  return { status: 'DONE', source: 'OCR', read: readTextFields(lines, OCR_SCALE) };
}
