import pg from 'pg';
import { createRequire } from 'node:module';
import { AppError } from '../lib/errors.js';

const OID = { INT8: 20, NUMERIC: 1700, DATE: 1082 } as const;

function toSafeNumber(text: string): number {
  const n = Number(text);
  if (!Number.isFinite(n) || (Number.isInteger(n) && !Number.isSafeInteger(n))) {
    // reachable from valid data (sums of many amounts near the 10^15 limit): a refusal, not a 500
    throw new AppError('CONFLICT', `A total (${text}) is beyond 2^53 - 1 and cannot be returned exactly; narrow the filters`);
  }
  return n;
}

const parsers: Record<number, (v: string) => unknown> = {
  [OID.INT8]: toSafeNumber,
  [OID.NUMERIC]: toSafeNumber,
  [OID.DATE]: (v) => v,
};

let installed = false;

/**
 * BIGINT and NUMERIC become JS numbers (checked to be safe integers), DATE stays a
 * 'YYYY-MM-DD' string. Applied to plain pg and to Sequelize's own parser lookup.
 */
export function installTypeParsers(): void {
  if (installed) return;
  installed = true;
  for (const [oid, parse] of Object.entries(parsers)) pg.types.setTypeParser(Number(oid), parse);
  const require = createRequire(import.meta.url);
  const { ConnectionManager } = require('sequelize/lib/dialects/postgres/connection-manager') as {
    ConnectionManager: { prototype: { getTypeParser: (oid: number, ...a: unknown[]) => unknown } };
  };
  const original = ConnectionManager.prototype.getTypeParser;
  ConnectionManager.prototype.getTypeParser = function (this: unknown, oid: number, ...args: unknown[]) {
    return parsers[oid] ?? original.call(this, oid, ...args);
  };
}
