import { createHash } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { withFirstTransactionHook } from '../db/database.js';
import { trySessionLock } from '../db/session-locks.js';
import { recordingAccess, type AccessCheck } from '../lib/access-record.js';
import { clock } from '../lib/clock.js';
import { conflict } from '../lib/errors.js';
import { recheckAccess, type Actor } from '../lib/scope.js';
import {
  KEEP_MS,
  claimKey,
  deleteExpiredKey,
  forgetUnlessCommitted,
  markWorkCommitted,
  readKey,
  responseBodyOf,
  storeResponse,
} from '../http/idempotency-store.js';
import { sent, statusOf, toolError, type ToolError } from './results.js';

/**
 * A confirmed write runs once per confirmToken: the token is its idempotency key in the service's
 * Idempotency-Key store (CONTRACT §1), kept under its hash, for the caller, with the tool's name as
 * the path and the arguments' digest as the request. A repeated confirm gets the first result back,
 * as a REST replay does, only while the caller still passes the access checks the first call passed.
 */
export async function runConfirmedOnce(
  actor: Actor,
  principal: string,
  token: string,
  tool: string,
  argsDigest: string,
  work: () => Promise<CallToolResult | ToolError>,
): Promise<CallToolResult> {
  const caller = `mcp:${principal}`;
  const key = createHash('sha256').update(token).digest('hex');
  const lock = await trySessionLock(`idempotency:${caller}:${key}`);
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      const row = await readKey(caller, key);
      if (row && row.created_at.getTime() < clock.now().getTime() - KEEP_MS) {
        await deleteExpiredKey(caller, key, row.created_at);
        continue;
      }
      if (row?.state === 'DONE') {
        recheckAccess(actor, row.access_checks ?? []);
        return JSON.parse(responseBodyOf(caller, key, row)) as CallToolResult;
      }
      if (!lock) throw conflict('This confirmation is still running');
      if (row?.work_committed) throw conflict('This confirmation did its work, but its result was lost');
      if (!row && !(await claimKey(caller, key, 'MCP', tool, argsDigest))) continue;
      const checks = new Map<string, AccessCheck>();
      const result = await recordingAccess(checks, () => withFirstTransactionHook(markWorkCommitted(caller, key), work));
      const status = statusOf(result);
      if (status >= 500 || status === 401) await forgetUnlessCommitted(caller, key);
      else
        await storeResponse(caller, key, {
          status,
          type: 'application/json',
          body: JSON.stringify(sent(result)),
          accessChecks: [...checks.values()],
        });
      return sent(result);
    }
    throw conflict('This confirmation is still running');
  } catch (err) {
    return sent(toolError(err));
  } finally {
    await lock?.release();
  }
}
