import { EXTENSION, type AllowedMime } from '../../lib/sniff.js';

const MAX_NAME = 255;

/**
 * The document name of an uploaded file: its name without any directory part (`/` or `\`),
 * without control characters, at most 255 characters (the extension is kept when cut).
 * Empty, `.` and `..` give null.
 */
export function documentNameOf(fileName: string | undefined): string | null {
  const base = (fileName ?? '').split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = base.replace(/[\x00-\x1f\x7f]/g, '').trim();
  if (clean === '' || clean === '.' || clean === '..') return null;
  const chars = [...clean];
  if (chars.length <= MAX_NAME) return clean;
  const dot = clean.lastIndexOf('.');
  const ext = dot > 0 && clean.length - dot <= 16 ? clean.slice(dot) : '';
  return chars.slice(0, MAX_NAME - [...ext].length).join('') + ext;
}

/** The name a download is saved under: the document name, with the type's extension when it has none. */
export function downloadName(documentName: string, mimeType: string): string {
  const ext = EXTENSION[mimeType as AllowedMime];
  if (!ext) return documentName;
  const known = new RegExp(`\\.(${ext}${ext === 'jpg' ? '|jpeg' : ''}${ext === 'tiff' ? '|tif' : ''})$`, 'i');
  return known.test(documentName) ? documentName : `${documentName}.${ext}`;
}

/**
 * `attachment` with a quoted ASCII fallback (quotes, backslashes and non-ASCII replaced) and
 * the exact name as RFC 5987 `filename*`, so no name can break out of the header.
 */
export function attachmentDisposition(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
