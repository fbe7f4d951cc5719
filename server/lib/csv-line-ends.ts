import { Transform, type TransformCallback } from 'node:stream';

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/**
 * PostgreSQL's `COPY … (FORMAT csv)` ends each record with LF; RFC 4180 (and CONTRACT §5) want
 * CRLF. This rewrites the record ends only: a line break inside a quoted field is data and is
 * left as it is. Quote state is carried across chunks (`""` inside a field toggles twice).
 */
export class CsvRecordEndsToCrlf extends Transform {
  private inQuotes = false;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let inQuotes = this.inQuotes;
    let recordEnds = 0;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte === QUOTE) inQuotes = !inQuotes;
      else if (byte === LF && !inQuotes) recordEnds++;
    }
    if (recordEnds === 0) {
      this.inQuotes = inQuotes;
      done(null, chunk);
      return;
    }
    const out = Buffer.allocUnsafe(chunk.length + recordEnds);
    inQuotes = this.inQuotes;
    let from = 0;
    let at = 0;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte === QUOTE) inQuotes = !inQuotes;
      else if (byte === LF && !inQuotes) {
        at += chunk.copy(out, at, from, i);
        out[at++] = CR;
        from = i; // the LF itself is copied with the next run
      }
    }
    chunk.copy(out, at, from, chunk.length);
    this.inQuotes = inQuotes;
    done(null, out);
  }
}
