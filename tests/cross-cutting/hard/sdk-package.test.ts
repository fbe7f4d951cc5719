import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildUser, buildWorkspace } from '../../support/factories/index.js';
import { startServer } from '../../support/http.js';

/**
 * The SDK as an app gets it (issue 31): `npm pack`, the tarball installed in a fresh folder of its
 * own (the registry supplies only what the package declares), a strict app type-checked against
 * it with skipLibCheck off, the README's quick start run against a real server, and require().
 */

const run = promisify(execFile);
const SDK_DIR = path.resolve('client-sdk');
const TYPESCRIPT = JSON.parse(readFileSync('node_modules/typescript/package.json', 'utf8')) as { version: string };
const TYPES_NODE = JSON.parse(readFileSync('node_modules/@types/node/package.json', 'utf8')) as { version: string };

let work: string;
let app: string;
let tarball: string;

/** The first ```ts block after "## Quick start" in the SDK's README. */
function readmeQuickstart(): string {
  const readme = readFileSync(path.join(SDK_DIR, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (!block?.[1]) throw new Error('no quick start in client-sdk/README.md');
  return block[1];
}

const STRICT_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023', 'DOM', 'DOM.Iterable'],
    types: ['node'],
    strict: true,
    skipLibCheck: false,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    noImplicitOverride: true,
    outDir: 'out',
  },
  include: ['src'],
};

/** Type checks that fail when a type degrades to any or the union of events loses its narrowing. */
const TYPE_CHECKS = `import { createClient, ConflictError, type RouterInputs, type WebhookEvent } from '@finance-entries/client-sdk';
const api = createClient({ baseUrl: 'http://localhost:3000', apiKey: 'fes_x', timeoutMs: 5_000, maxRetries: 1 });
export async function checks(event: WebhookEvent): Promise<void> {
  // @ts-expect-error not a statement format
  await api.banking.importStatement('id', new Uint8Array(), { format: 'XLS' });
  // @ts-expect-error amountCents is a number
  const bad: RouterInputs['entries']['create'] = { projectId: 1, entryType: 'INCOME', amountCents: '1', baseCurrency: 'EUR', entryDate: '2026-01-01' };
  void bad;
  const entry = await api.trpc.entries.create.mutate({ projectId: 1, entryType: 'INCOME', amountCents: 1, baseCurrency: 'EUR', entryDate: '2026-01-01' });
  const id: number = entry.id;
  // @ts-expect-error the entry has no such field
  void entry.notAField;
  if (event.type === 'entry.refunded') {
    const original: number = event.data.originalEntryId;
    const cents: number = event.data.object.amountCents;
    void [original, cents, id];
  }
  // @ts-expect-error apiKey and credentials exclude each other
  createClient({ baseUrl: 'x', apiKey: 'k', credentials: { email: 'a', password: 'b' } });
  void ConflictError;
}
`;

const CJS_APP = `const sdk = require('@finance-entries/client-sdk');
const api = sdk.createClient({ baseUrl: 'http://localhost:1' });
console.log(JSON.stringify({ createClient: typeof sdk.createClient, trpc: typeof api.trpc.entries.list.query, error: new sdk.NotFoundError(404, 'NOT_FOUND', 'x') instanceof sdk.ApiError }));
`;

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), 'sdk-package-'));
  app = path.join(work, 'app');
  mkdirSync(path.join(app, 'src'), { recursive: true });
  const packed = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: SDK_DIR, maxBuffer: 32 * 1024 * 1024 });
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { filename: string }[];
  tarball = path.join(work, info!.filename);
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the SDK package', () => {
  it('holds only its own build, README and package.json', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.trim().split('\n');
    const foreign = files.filter(
      (f) => !/^package\/(?:package\.json|README\.md|dist\/(?:esm|cjs)\/[\w-]+\.(?:js|d\.ts)|dist\/cjs\/package\.json)$/.test(f),
    );
    expect(foreign).toEqual([]);
    expect(files).toEqual(
      expect.arrayContaining([
        'package/dist/esm/index.js',
        'package/dist/esm/index.d.ts',
        'package/dist/cjs/index.js',
        'package/dist/cjs/index.d.ts',
      ]),
    );
    const modules = readdirSync(path.join(SDK_DIR, 'src')).map((f) => f.replace(/\.ts$/, ''));
    for (const format of ['esm', 'cjs']) {
      const built = files.filter((f) => f.startsWith(`package/dist/${format}/`) && f.endsWith('.js'));
      expect(built.map((f) => path.basename(f, '.js')).sort()).toEqual([...modules].sort());
    }
    const manifest = JSON.parse((await run('tar', ['-xzOf', tarball, 'package/package.json'])).stdout) as Record<string, unknown>;
    expect(manifest['private']).toBeUndefined();
    expect(Object.keys(manifest['dependencies'] as object).sort()).toEqual(['@trpc/client', '@trpc/server']);
  });

  it('installs into a fresh app that type-checks strictly, runs the README quick start and loads with require()', async () => {
    writeFileSync(
      path.join(app, 'package.json'),
      JSON.stringify({
        name: 'sdk-consumer',
        private: true,
        type: 'module',
        dependencies: { '@finance-entries/client-sdk': `file:${tarball}` },
        devDependencies: { typescript: TYPESCRIPT.version, '@types/node': TYPES_NODE.version },
      }),
    );
    writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify(STRICT_TSCONFIG, null, 2));
    writeFileSync(path.join(app, 'src', 'quickstart.ts'), readmeQuickstart());
    writeFileSync(path.join(app, 'src', 'checks.ts'), TYPE_CHECKS);
    writeFileSync(
      path.join(app, 'src', 'commonjs.cts'),
      `import { createClient } from '@finance-entries/client-sdk';\nexport const api = createClient({ baseUrl: 'http://localhost:1' });\n`,
    );
    writeFileSync(path.join(app, 'require.cjs'), CJS_APP);

    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'], { cwd: app, timeout: 240_000 });
    const tsc = await run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.'], { cwd: app, timeout: 240_000 }).catch(
      (e: { stdout?: string; code?: number }) => e,
    );
    expect((tsc as { stdout?: string }).stdout ?? '').toBe('');

    const server = await startServer();
    const user = await buildUser();
    await buildWorkspace({ members: [user.id], name: 'Łódź Bureau' });
    const env = { ...process.env, BASE_URL: server.baseUrl, EMAIL: user.email, PASSWORD: user.password };
    const { stdout } = await run(process.execPath, ['out/quickstart.js'], { cwd: app, env, timeout: 60_000 });
    expect(stdout).toContain(`${user.email}: 1 workspace(s)`);
    expect(stdout).toContain('Łódź Bureau: 0 entries, tags: none');
    expect(stdout).toMatch(/no such entry \(404 NOT_FOUND, request [0-9a-f-]{36}\)/);

    const required = await run(process.execPath, ['require.cjs'], { cwd: app });
    expect(JSON.parse(required.stdout)).toEqual({ createClient: 'function', trpc: 'function', error: true });
    const commonjs = readFileSync(path.join(app, 'out', 'commonjs.cjs'), 'utf8');
    expect(commonjs).toContain('require("@finance-entries/client-sdk")');
  });
});
