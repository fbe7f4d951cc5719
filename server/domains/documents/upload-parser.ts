import type { Request, Response } from 'express';
import multer from 'multer';
import { AppError, badRequest } from '../../lib/errors.js';
import { runtime } from '../../runtime.js';
import type { IncomingFile } from './document-files.service.js';
import '../../lib/raw-body.js';

type Busboy = NodeJS.WritableStream & { _hparser?: unknown };
type PartHeader = Record<string, string[] | undefined>;
type HeaderParser = { cb: (header: PartHeader) => void };

/**
 * The headers of each part as busboy parses them. busboy (1.6) gives a part without a
 * `Content-Type` header the type `text/plain` and does not tell that it was absent; CONTRACT §6:
 * that default is not a declaration. busboy's part-header parser (its `_hparser` while a part's
 * headers are read, one per busboy) calls back with the raw headers and, synchronously from there,
 * emits `file`: the parser is wrapped when busboy first installs it.
 */
function watchPartHeaders(busboy: Busboy, onHeader: (header: PartHeader) => void): void {
  let current = busboy._hparser;
  let wrapped = false;
  Object.defineProperty(busboy, '_hparser', {
    configurable: true,
    enumerable: true,
    get: () => current,
    set: (parser: unknown) => {
      current = parser;
      const target = parser as Partial<HeaderParser> | null;
      if (wrapped || typeof target?.cb !== 'function') return;
      wrapped = true;
      const callback = target.cb;
      target.cb = (header) => {
        onHeader(header);
        callback.call(target, header);
      };
    },
  });
}

/**
 * What the parts declare. `type`: the file part's `Content-Type` as busboy read it, null when the
 * part has no such header; undefined until busboy emits the file (or if its internals change: then
 * busboy's own value stands, as before). `jsonFields`: the form fields sent as `application/json`
 * parts (RFC 7578 lets a field declare its type; Java's okhttp client sends an enum field that way,
 * as `"BASIS"` with its quotes).
 */
type Declared = { type?: string | null; jsonFields: Set<string> };

/** A keyed request's body was already read whole, to fingerprint it (server/http/idempotency-request.ts): busboy reads that copy. */
const streamHandlerFor = (declared: Declared) => (req: Request, busboy: Busboy) => {
  let lastHeader: PartHeader | undefined;
  watchPartHeaders(busboy, (header) => (lastHeader = header));
  busboy.prependListener('file', (name: string, _stream: unknown, info: { mimeType: string }) => {
    if (name === 'file' && lastHeader) declared.type = lastHeader['content-type'] === undefined ? null : info.mimeType;
  });
  busboy.prependListener('field', (name: string, _value: unknown, info: { mimeType: string }) => {
    if (info.mimeType === 'application/json') declared.jsonFields.add(name);
  });
  return req.rawBody ? busboy.end(req.rawBody) : req.pipe(busboy);
};

/**
 * multer with memory storage: one `file` part and a few small text fields. Built per request,
 * so the size limit is the current UPLOAD_LIMIT_BYTES.
 */
const parserFor = (uploadLimit: number, declared: Declared) => {
  const streamHandler = streamHandlerFor(declared);
  const options: multer.Options & { streamHandler: typeof streamHandler } = {
    storage: multer.memoryStorage(),
    preservePath: true, // the service strips paths itself (both / and \), the same for every caller
    defParamCharset: 'utf8',
    limits: { fileSize: uploadLimit, files: 1, fields: 4, parts: 5, fieldSize: 1024, fieldNameSize: 100, headerPairs: 20 },
    streamHandler, // not in @types/multer 2.3 (multer 2.5 has it)
  };
  return multer(options).single('file');
};

function toAppError(err: unknown): AppError {
  if (err instanceof multer.MulterError) {
    if (err.code === 'LIMIT_FILE_SIZE') {
      return new AppError('PAYLOAD_TOO_LARGE', `The file exceeds the upload limit of ${runtime().config.UPLOAD_LIMIT_BYTES} bytes`);
    }
    if (err.code === 'LIMIT_UNEXPECTED_FILE' || err.code === 'LIMIT_FILE_COUNT')
      return badRequest('Send exactly one file, in the part named "file"');
    return badRequest(`Malformed multipart body (${err.code})`);
  }
  return badRequest('Malformed multipart body');
}

const hasBody = (req: Request) => Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;

/** Reads the multipart body: the file (400 when absent, 413 when too large) and the text fields. */
export async function receiveFile(req: Request, res: Response): Promise<{ file: IncomingFile; fields: Record<string, unknown> }> {
  if (!req.is('multipart/form-data')) {
    if (!hasBody(req)) throw badRequest('A multipart/form-data body with a "file" part is required');
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The body must be multipart/form-data');
  }
  const declared: Declared = { jsonFields: new Set() };
  const parser = parserFor(runtime().config.UPLOAD_LIMIT_BYTES, declared);
  await new Promise<void>((resolve, reject) => parser(req, res, (err?: unknown) => (err ? reject(toAppError(err)) : resolve())));
  if (!req.file) throw badRequest('The "file" part is missing');
  const declaredType = declared.type === undefined ? req.file.mimetype : declared.type;
  const file = { bytes: req.file.buffer, fileName: req.file.originalname, declaredType };
  return { file, fields: decodeJsonFields({ ...(req.body as Record<string, unknown>) }, declared.jsonFields) };
}

/**
 * A field sent as an `application/json` part holds a JSON value: a string, number or boolean is
 * read as the text a plain field would carry (`"BASIS"` → `BASIS`, `12` → `12`), null as a field
 * not sent; anything else, or text that is not JSON, is a 400 naming the part.
 */
function decodeJsonFields(fields: Record<string, unknown>, jsonFields: ReadonlySet<string>): Record<string, unknown> {
  for (const name of jsonFields) {
    const raw = fields[name];
    if (typeof raw !== 'string') throw badRequest(`Send the form field "${name}" once`);
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw badRequest(`The form field "${name}" is declared application/json but is not JSON`);
    }
    if (value === null) delete fields[name];
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') fields[name] = String(value);
    else throw badRequest(`The form field "${name}" must be a JSON string, number or boolean`);
  }
  return fields;
}
