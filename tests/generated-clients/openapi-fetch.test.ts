import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildUser, type TestUser } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';

/**
 * A TypeScript client generated from the served openapi.json by a third-party generator
 * (openapi-typescript, the same command as `npm run clients:generate`) drives the real server
 * through openapi-fetch. The types are regenerated here, from the running server, and the flow is
 * type-checked against them, so a change that breaks generated clients cannot hide.
 */

const run = promisify(execFile);
const GENERATED_DIR = path.resolve('tests/.generated');
const GENERATED_TYPES = path.join(GENERATED_DIR, 'finance-api.d.ts');
const GENERATOR = path.resolve('node_modules/openapi-typescript/bin/cli.js');
const TSC = path.resolve('node_modules/typescript/bin/tsc');

async function typecheck(project: string): Promise<{ ok: boolean; output: string }> {
  try {
    await run(process.execPath, [TSC, '-p', project], { timeout: 120_000 });
    return { ok: true, output: '' };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

let api: Api;
let user: TestUser;

beforeAll(async () => {
  api = await startServer();
  user = await buildUser();
  mkdirSync(GENERATED_DIR, { recursive: true });
  // async: the generator fetches /openapi.json from the server running in this process
  await run(process.execPath, [GENERATOR, `${api.baseUrl}/openapi.json`, '-o', GENERATED_TYPES], { timeout: 60_000 });
}, 120_000);

describe('generated TypeScript client (openapi-typescript + openapi-fetch)', () => {
  it('generates types for every served operation', async () => {
    const types = readFileSync(GENERATED_TYPES, 'utf8');
    const served = (await api.get<{ paths: Record<string, Record<string, { operationId: string }>> }>('/openapi.json')).body;
    expect(Object.keys(served.paths).length).toBeGreaterThan(0);
    for (const [route, item] of Object.entries(served.paths)) {
      expect(types, route).toContain(`"${route}": {`);
      for (const operation of Object.values(item))
        expect(types, operation.operationId).toMatch(new RegExp(`\\b${operation.operationId}: \\{`));
    }
  });

  it('type-checks the client flow against the regenerated types, and a wrong call fails the check', async () => {
    // a call the types must refuse (an entry type that does not exist), written outside tests/,
    // which the project's own typecheck covers
    const probe = mkdtempSync(path.join(os.tmpdir(), 'generated-client-probe-'));
    const flowModule = path.resolve('tests/generated-clients/flow.js');
    writeFileSync(
      path.join(probe, 'wrong-call.ts'),
      `import { financeClient } from ${JSON.stringify(flowModule)};\n` +
        `export const wrong = () => financeClient('http://x').POST('/entries', { body: { entryType: 'GIFT' } });\n`,
    );
    const typeRoots = [path.resolve('node_modules/@types')];
    const probeConfig = {
      extends: path.resolve('tsconfig.json'),
      compilerOptions: { noEmit: true, rootDir: '/', typeRoots },
      include: ['wrong-call.ts'],
    };
    writeFileSync(path.join(probe, 'tsconfig.json'), JSON.stringify(probeConfig));

    try {
      const [flow, wrong] = await Promise.all([
        typecheck('tests/generated-clients/tsconfig.json'),
        typecheck(path.join(probe, 'tsconfig.json')),
      ]);
      expect(flow.output).toBe('');
      expect(flow.ok).toBe(true);
      expect(wrong.ok).toBe(false);
      expect(wrong.output).toMatch(
        /wrong-call\.ts\(\d+,\d+\): error TS2322: Type '"GIFT"' is not assignable to type '"INCOME" \| "EXPENSE"'/,
      );
      expect(wrong.output).not.toContain('flow.ts');
    } finally {
      rmSync(probe, { recursive: true, force: true });
    }
  }, 240_000);

  it('drives the server: login, create workspace, project and entry, list, reports, typed errors', async () => {
    // imported only now: the flow's types come from the file generated in beforeAll
    const { financeClient, walkDocumentedFlow } = await import('./flow.js');
    const result = await walkDocumentedFlow(financeClient(api.baseUrl), { email: user.email, password: user.password });

    expect(result.login).toMatchObject({ token_type: 'Bearer', expires_in: 900, user: { email: user.email } });
    expect(result.entry).toMatchObject({ workspaceId: result.workspace.id, projectId: result.project.id, entryStatus: 'PENDING' });
    expect(result.page).toMatchObject({ total: 1, limit: 10, offset: 0 });
    expect(result.page.items.map((e) => e.id)).toEqual([result.entry.id]);
    expect(result.summary).toMatchObject({ totalIncomeCents: 250_000, totalExpenseCents: 0, entryCount: 1, currency: 'USD' });
    expect(result.timeline.map((r) => [r.period, r.incomeCents])).toEqual([
      ['2026-01', 0],
      ['2026-02', 250_000],
      ['2026-03', 0],
    ]);
    expect(result.missing).toMatchObject({ status: 404, error: { code: 'NOT_FOUND' } });
  });
});
