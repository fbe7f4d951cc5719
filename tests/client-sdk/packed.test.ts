import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);

/**
 * The published package, as an app meets it: `npm pack` (which builds dist/), the tarball unpacked
 * into an app's node_modules beside its two dependencies (@trpc/client and @trpc/server, the
 * versions the SDK pins, linked from this repository), and the app compiled by tsc with
 * `skipLibCheck: false`, so every declaration the package ships or pulls in is checked:
 * - a strict Node app (NodeNext, @types/node; lib DOM too, for @trpc/client's RequestInfo);
 * - a strict browser app (lib ES2022 + DOM, no Node types, bundler resolution).
 * Each app also proves the inputs typed: a wrong id type is an `@ts-expect-error`.
 */

const root = process.cwd();
const dir = mkdtempSync(path.join(os.tmpdir(), 'sdk-packed-'));
let tarball: string;

const APP = `import { createClient, WEBHOOK_EVENT_TYPES, type WebhookEvent } from '@finance-entries/client-sdk';

const api = createClient({ baseUrl: 'https://finance.example', apiKey: 'fes_example' });

export async function entryCount(workspaceId: number): Promise<number> {
  const page = await api.trpc.entries.list.query({ workspaceId, limit: 10 });
  // @ts-expect-error a workspace id is a number
  await api.trpc.entries.list.query({ workspaceId: 'x' });
  // @ts-expect-error an entry id is a number
  await api.trpc.entries.get.query({ id: '1' });
  return page.total;
}

export function describeEvent(event: WebhookEvent): string {
  if (event.type === 'document.extracted') return event.data.object.documentName;
  if (event.type === 'entry.refunded') return String(event.data.originalEntryId);
  return event.type;
}

export const types: readonly string[] = WEBHOOK_EVENT_TYPES;
`;

function app(name: string, tsconfig: object, extraModules: string[]): string {
  const appDir = path.join(dir, name);
  const sdkDir = path.join(appDir, 'node_modules', '@finance-entries', 'client-sdk');
  mkdirSync(sdkDir, { recursive: true });
  mkdirSync(path.join(appDir, 'node_modules', '@trpc'), { recursive: true });
  mkdirSync(path.join(appDir, 'node_modules', '@types'), { recursive: true });
  for (const mod of ['@trpc/client', '@trpc/server', ...extraModules])
    symlinkSync(path.join(root, 'node_modules', mod), path.join(appDir, 'node_modules', mod), 'dir');
  writeFileSync(path.join(appDir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  writeFileSync(path.join(appDir, 'tsconfig.json'), JSON.stringify({ compilerOptions: tsconfig, include: ['app.ts'] }));
  writeFileSync(path.join(appDir, 'app.ts'), APP);
  return appDir;
}

async function compile(appDir: string): Promise<string> {
  await run('tar', ['xzf', tarball, '-C', path.join(appDir, 'node_modules', '@finance-entries', 'client-sdk'), '--strip-components=1']);
  const tsc = path.join(root, 'node_modules', '.bin', 'tsc');
  const result = await run(tsc, ['-p', appDir], { timeout: 300_000 }).then(
    (r) => r.stdout,
    (e: { stdout?: string; message: string }) => e.stdout || e.message,
  );
  return result;
}

beforeAll(async () => {
  await run('npm', ['pack', '--pack-destination', dir], { cwd: path.join(root, 'client-sdk'), timeout: 600_000 });
  tarball = path.join(
    dir,
    readdirSync(dir).find((f) => f.endsWith('.tgz'))!,
  );
}, 660_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STRICT = { strict: true, skipLibCheck: false, noEmit: true, target: 'ES2022' };

describe('the packed SDK', () => {
  // lib DOM: @trpc/client's declarations name the fetch type RequestInfo, which @types/node does not declare
  it('compiles in a strict Node app (NodeNext, @types/node, lib ES2022 + DOM, skipLibCheck false)', async () => {
    const appDir = app(
      'node-app',
      { ...STRICT, lib: ['ES2022', 'DOM'], module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'] },
      ['@types/node', 'undici-types'],
    );
    expect(await compile(appDir)).toBe('');
  }, 300_000);

  it('compiles in a strict browser app (lib ES2022 + DOM, no Node types, skipLibCheck false)', async () => {
    const appDir = app('browser-app', { ...STRICT, lib: ['ES2022', 'DOM'], module: 'ESNext', moduleResolution: 'Bundler', types: [] }, []);
    expect(await compile(appDir)).toBe('');
  }, 300_000);
});
