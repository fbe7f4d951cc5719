/**
 * The reports' raw SQL, for their baseline: each report procedure is called once in this
 * process (same service code as the server) while pg's Client#query records every statement
 * that reads `entries` and the report's session settings (`SET LOCAL work_mem …`, see
 * server/domains/reports/report-sql.ts); the bench then times those statements run directly
 * with pg, in one transaction so that the settings apply as they do in the service.
 */
import pg from 'pg';
import { reportsRouter } from '../../server/domains/reports/reports.router.js';
import type { Request, Response } from 'express';
import { contextOf } from '../../server/trpc/context.js';

export type RecordedStatement = { text: string; values?: unknown[] };
export type ReportCase = { name: string; path: string; query: Record<string, string | number>; call: string };

type QueryFn = (...args: unknown[]) => unknown;
const proto = pg.Client.prototype as unknown as { query: QueryFn };

export async function recordReportSql(token: string, c: ReportCase, input: Record<string, unknown>): Promise<RecordedStatement[]> {
  const recorded: RecordedStatement[] = [];
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const [first, second] = args;
    const text = typeof first === 'string' ? first : (first as { text?: string })?.text;
    const values = Array.isArray(second) ? second : (first as { values?: unknown[] })?.values;
    if (text && (/\bentries\b/i.test(text) || /^\s*SET LOCAL\b/i.test(text))) recorded.push({ text, values });
    return original.apply(this, args);
  };
  try {
    const req = { headers: { authorization: `Bearer ${token}` } } as unknown as Request;
    const res = { setHeader: () => undefined, getHeader: () => 'bench' } as unknown as Response;
    const caller = reportsRouter.createCaller(contextOf('rest', req, res));
    await (caller as unknown as Record<string, (i: unknown) => Promise<unknown>>)[c.call](input);
  } finally {
    proto.query = original;
  }
  if (!recorded.some((s) => /\bentries\b/i.test(s.text))) throw new Error(`${c.name}: recorded no SQL`);
  return recorded;
}

/** Runs the recorded statements one after the other on `client`, in one read-only transaction. */
export async function replay(client: pg.Client, statements: RecordedStatement[]): Promise<void> {
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    for (const s of statements) await client.query(s.text, s.values);
  } finally {
    await client.query('COMMIT');
  }
}
