/**
 * `req.rawBody`: the whole multipart body of a request with an Idempotency-Key, read by the
 * idempotency middleware to fingerprint it (its stream is spent then, so the multipart parsers
 * read this copy). Its own module so that every reader of it sees the declaration, also when
 * compiled without the middleware (the SDK build).
 */
declare module 'express-serve-static-core' {
  interface Request {
    rawBody?: Buffer;
  }
}

export {};
