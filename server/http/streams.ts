import { pipeline } from 'node:stream/promises';
import type { Readable, Transform } from 'node:stream';
import type { Response } from 'express';

/**
 * Streams into the response. A client that hangs up (often right after the last byte)
 * is not a server error: the pipeline is torn down, the sources are closed, nothing is logged.
 */
export async function streamToResponse(res: Response, source: Readable, ...transforms: Transform[]): Promise<void> {
  try {
    await pipeline([source, ...transforms, res]);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') throw err;
  }
}
