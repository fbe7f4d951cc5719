/**
 * The same-SQL baseline of GET /entries/{id} and POST /entries (issue 53; see same-sql.ts): captures the
 * route's statements in this process and starts same-sql-server.ts on loopback to replay them.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Request, Response } from 'express';
import { entriesRouter } from '../../server/domains/entries/entries.router.js';
import { freePort } from '../../server/db/embedded.js';
import { wireDomainReactions } from '../../server/domains/reactions.js';
import { contextOf } from '../../server/trpc/context.js';
import { planFrom, planSummary, recordStatements, type SameSqlPlan } from './same-sql.js';
import { readCpuSeconds } from './server-process.js';

type EntriesCaller = ReturnType<typeof entriesRouter.createCaller>;

function entriesCaller(token: string): EntriesCaller {
  wireDomainReactions(); // as the app does at start-up (rules, valuation, outbox … in the create); a second call changes nothing
  const req = { headers: { authorization: `Bearer ${token}` } } as unknown as Request;
  const res = { setHeader: () => undefined, getHeader: () => 'bench-capture' } as unknown as Response;
  return entriesRouter.createCaller(contextOf('rest', req, res));
}

/** GET /entries/{id}'s plan: two warm-up reads, then two reads of different entries recorded. */
export async function captureEntryDetail(token: string, ids: [number, number, number]): Promise<SameSqlPlan> {
  const caller = entriesCaller(token);
  await caller.get({ id: ids[0] });
  await caller.get({ id: ids[0] }); // the second after the change listener and the pool's connection are up
  const a = await recordStatements(() => caller.get({ id: ids[1] }));
  const b = await recordStatements(() => caller.get({ id: ids[2] }));
  return planFrom('GET /entries/{id}', a, b, [ids[1], ids[2]]);
}

/** POST /entries' plan: `body` (the bench's) created twice to warm up, then twice recorded (four entries stay). */
export async function captureEntryCreate(token: string, body: string): Promise<SameSqlPlan> {
  const caller = entriesCaller(token);
  const input = JSON.parse(body) as Parameters<EntriesCaller['create']>[0];
  await caller.create(input);
  await caller.create(input);
  const a = await recordStatements(() => caller.create(input));
  const b = await recordStatements(() => caller.create(input));
  return planFrom('POST /entries', a, b);
}

export type SameSqlServer = { base: string; pid: number; cpuSeconds: () => number; summary: string; stop: () => Promise<void> };

/** Starts the bare replay server for `plan` against `url` (a child process, metered like the real server). */
export async function startSameSqlServer(plan: SameSqlPlan, url: string, poolMax = 10): Promise<SameSqlServer> {
  const dir = path.resolve('.data/bench-same-sql');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${plan.route.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '')}.json`);
  writeFileSync(file, JSON.stringify(plan, null, 2));
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('bench/harness/same-sql-server.ts'), file], {
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), POOL_MAX: String(poolMax) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errText = '';
  child.stderr.on('data', (chunk: Buffer) => (errText = (errText + chunk.toString('utf8')).slice(-4000)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`same-SQL server did not start: ${errText}`)), 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString('utf8').includes('listening')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`same-SQL server exited (${code}): ${errText}`));
    });
  });
  const pid = child.pid!;
  return {
    base: `http://127.0.0.1:${port}`,
    pid,
    cpuSeconds: () => readCpuSeconds(pid),
    summary: planSummary(plan),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      if (errText) process.stderr.write(errText);
    },
  };
}
