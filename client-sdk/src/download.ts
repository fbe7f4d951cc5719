/** A file answer (document, CSV export, PDF report) whose body has not been read yet. */
export interface Download {
  /** From `Content-Disposition` (`filename*` preferred), or null when the server named none. */
  fileName: string | null;
  contentType: string;
  /** From `Content-Length`; null for streamed answers such as the CSV export. */
  size: number | null;
  /** The body as a web stream. Read it once: through this, `bytes()` or `text()`. */
  body: ReadableStream<Uint8Array>;
  bytes(): Promise<Uint8Array>;
  text(): Promise<string>;
}

export function toDownload(res: Response): Download {
  const length = res.headers.get('content-length');
  const body = res.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  return {
    fileName: fileNameOf(res.headers.get('content-disposition')),
    contentType: res.headers.get('content-type') ?? 'application/octet-stream',
    size: length !== null && /^\d+$/.test(length) ? Number(length) : null,
    body,
    bytes: async () => new Uint8Array(await new Response(body).arrayBuffer()),
    text: () => new Response(body).text(),
  };
}

/** Reads `filename*=UTF-8''…` (RFC 5987) or else the quoted `filename="…"` of a Content-Disposition. */
export function fileNameOf(disposition: string | null): string | null {
  if (!disposition) return null;
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(disposition);
  if (extended?.[2] && (extended[1] ?? '').toUpperCase() === 'UTF-8') {
    try {
      return decodeURIComponent(extended[2].trim());
    } catch {
      // fall back to the plain parameter
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(disposition);
  const value = plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2]?.trim();
  return value || null;
}
