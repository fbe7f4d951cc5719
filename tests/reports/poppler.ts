import { execFileSync, spawnSync } from 'node:child_process';

const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;

function aptInstall(): boolean {
  const install = () =>
    spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'poppler-utils'], { stdio: 'ignore', timeout: 240_000 }).status === 0;
  if (install()) return true;
  spawnSync('apt-get', ['update'], { stdio: 'ignore', timeout: 240_000 });
  return install();
}

/**
 * pdftoppm and pdftotext (Debian poppler-utils), installed with apt-get when missing.
 * False only when they cannot be installed (then the PDF rendering test is skipped).
 */
export function ensurePoppler(): boolean {
  if (has('pdftoppm') && has('pdftotext')) return true;
  if (!has('apt-get')) return false;
  return aptInstall() && has('pdftoppm') && has('pdftotext');
}

/** A binary PGM (P5) as width, height and 8-bit grey pixels. */
export function parsePgm(buf: Buffer): { width: number; height: number; pixels: Buffer } {
  let offset = 0;
  const tokens: string[] = [];
  while (tokens.length < 4) {
    while (/\s/.test(String.fromCharCode(buf[offset]))) offset++;
    if (buf[offset] === 0x23) {
      while (buf[offset] !== 0x0a) offset++;
      continue;
    }
    let token = '';
    while (!/\s/.test(String.fromCharCode(buf[offset]))) token += String.fromCharCode(buf[offset++]);
    tokens.push(token);
  }
  offset++; // the single whitespace after maxval
  const [magic, width, height, maxval] = tokens;
  if (magic !== 'P5' || maxval !== '255') throw new Error(`not an 8-bit binary PGM: ${tokens.join(' ')}`);
  return { width: Number(width), height: Number(height), pixels: buf.subarray(offset, offset + Number(width) * Number(height)) };
}

export const run = (tool: string, args: string[]) => execFileSync(tool, args, { encoding: 'utf8' });
