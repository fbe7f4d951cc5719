/**
 * Times every report over real HTTP against the bench database (see generate-dataset.ts):
 *
 *   tsx bench/report-timings.ts [--runs 5] [--explain] [--pdf-out report.pdf]
 *
 * The app runs in-process on an ephemeral port; a member of the largest bench workspace
 * calls each report scenario `runs` times and the min / median / max wall time is printed.
 * `--explain` also prints EXPLAIN (ANALYZE, BUFFERS) of every report statement once;
 * `--pdf-out` keeps the PDF of the whole period, to look at.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueryTypes } from 'sequelize';
import { loadConfig } from '../server/config.js';
import { db } from '../server/db/database.js';
import { User, WorkspaceMember } from '../server/db/models/index.js';
import { hashPassword } from '../server/domains/auth/passwords.js';
import { createLogger } from '../server/lib/logger.js';
import { setRuntime } from '../server/runtime.js';
import { PERMISSIONS } from '../shared/permissions.js';
import { openBenchDatabase } from './bench-db.js';

type Scenario = { name: string; path: string; query: Record<string, string | number> };

function scenarios(projectId: number): Scenario[] {
  const reports = ['summary', 'by-party', 'by-tag', 'by-project', 'flows', 'distribution'];
  const all: Scenario[] = [];
  for (const r of reports) {
    all.push({ name: `${r} (all 3 years)`, path: `/reports/${r}`, query: {} });
    all.push({ name: `${r} (2025)`, path: `/reports/${r}`, query: { from: '2025-01-01', to: '2025-12-31' } });
    all.push({ name: `${r} (projectId)`, path: `/reports/${r}`, query: { projectId } });
    all.push({ name: `${r} (currency EUR)`, path: `/reports/${r}`, query: { currency: 'EUR' } });
  }
  for (const groupBy of ['day', 'week', 'month']) {
    all.push({ name: `timeline ${groupBy} (all, open range)`, path: '/reports/timeline', query: { groupBy } });
    all.push({
      name: `timeline ${groupBy} (zero-filled 3 years)`,
      path: '/reports/timeline',
      query: { groupBy, from: '2024-01-01', to: '2026-12-31' },
    });
  }
  all.push({ name: 'calendar (2025)', path: '/reports/calendar', query: { year: 2025 } });
  all.push({ name: 'calendar (2025, projectId)', path: '/reports/calendar', query: { year: 2025, projectId } });
  all.push({ name: 'export/pdf (all 3 years)', path: '/reports/export/pdf', query: {} });
  all.push({ name: 'export/pdf (2025)', path: '/reports/export/pdf', query: { from: '2025-01-01', to: '2025-12-31' } });
  return all;
}

/** Prints EXPLAIN ANALYZE of every report statement (those reading `entries e`) before running it. */
function explainReportQueries(): void {
  const sequelize = db();
  const original = sequelize.query.bind(sequelize) as (...args: unknown[]) => Promise<unknown>;
  (sequelize as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = async (sql: unknown, options: unknown) => {
    if (typeof sql === 'string' && /FROM entries e\b/.test(sql) && !sql.startsWith('EXPLAIN')) {
      const plan = (await original(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, { ...(options as object), type: QueryTypes.SELECT })) as {
        'QUERY PLAN': string;
      }[];
      console.log(`\n--- ${sql.replace(/\s+/g, ' ').slice(0, 160)}…\n${plan.map((r) => r['QUERY PLAN']).join('\n')}`);
    }
    return original(sql, options);
  };
}

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const runs = Number(argValue('--runs') ?? 5);
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a positive integer');
  const explain = process.argv.includes('--explain');
  const pdfOut = argValue('--pdf-out');
  const bench = await openBenchDatabase({ poolMax: 10 });
  const config = loadConfig({
    DATABASE_URL: bench.url,
    JWT_SECRET: randomBytes(32).toString('hex'),
    CREDENTIALS_KEYS: `bench:${randomBytes(32).toString('base64')}`,
    LOG_LEVEL: 'error',
    SEED_DEMO: 'false',
  });
  const { resolveSecrets } = await import('../server/lib/secrets.js');
  setRuntime({ config, secrets: resolveSecrets(config), logger: createLogger(config.LOG_LEVEL) });
  const { createApp } = await import('../server/app.js');
  const server = http.createServer(createApp());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const [ws] = await db().query<{ id: number; entries: number }>(
      `SELECT w.id, count(e.id) AS entries FROM workspaces w JOIN entries e ON e.workspace_id = w.id
        GROUP BY w.id ORDER BY count(e.id) DESC LIMIT 1`,
      { type: QueryTypes.SELECT },
    );
    if (!ws) throw new Error('no bench data: run tsx bench/generate-dataset.ts first');
    const [{ id: projectId }] = await db().query<{ id: number }>('SELECT min(id) AS id FROM projects WHERE workspace_id = $1', {
      bind: [ws.id],
      type: QueryTypes.SELECT,
    });
    const email = `bench-${randomBytes(4).toString('hex')}@example.test`;
    const password = 'bench-password-123';
    const user = await User.create({
      email,
      name: 'Bench',
      passwordHash: await hashPassword(password),
      permissions: [...PERMISSIONS],
      isActive: true,
    });
    await WorkspaceMember.create({ workspaceId: ws.id, userId: user.id });
    const login = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    const token = ((await login.json()) as { access_token: string }).access_token;
    console.log(`workspace ${ws.id}: ${ws.entries.toLocaleString('en-US')} entries; ${explain ? 1 : runs} run(s) per scenario\n`);
    if (explain) explainReportQueries();

    for (const s of scenarios(projectId)) {
      const times: number[] = [];
      let bytes = 0;
      for (let i = 0; i < (explain ? 1 : runs); i++) {
        const url = new URL(s.path, base);
        for (const [k, v] of Object.entries({ workspaceId: ws.id, ...s.query })) url.searchParams.set(k, String(v));
        const started = performance.now();
        const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
        const body = Buffer.from(await res.arrayBuffer());
        times.push(performance.now() - started);
        if (res.status !== 200) throw new Error(`${s.name}: ${res.status} ${body.toString('utf8').slice(0, 300)}`);
        bytes = body.length;
        if (pdfOut && s.path.endsWith('/pdf') && Object.keys(s.query).length === 0) writeFileSync(pdfOut, body);
      }
      const line = `${s.name.padEnd(42)} min ${Math.min(...times)
        .toFixed(0)
        .padStart(5)} ms  median ${median(times).toFixed(0).padStart(5)} ms  max ${Math.max(...times)
        .toFixed(0)
        .padStart(5)} ms  ${(bytes / 1024).toFixed(1).padStart(7)} KiB`;
      if (!explain) console.log(line);
    }
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await bench.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
