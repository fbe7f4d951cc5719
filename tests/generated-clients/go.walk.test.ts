import { cpSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CACHE_DIR, OPENAPI_30, REPO, run, walkWorld, WALK_STEPS } from './harness.js';

/**
 * Issue 30: the Go client that oapi-codegen (pinned below; it reads OAS 3.0, so from the committed
 * openapi-3.0.json) generates walks the service; the webhook signature is checked with the Standard
 * Webhooks Go library (pinned in go/go.mod and go.sum). go/main.go is the walk; the generated
 * package is written beside a copy of it in the cache dir, never the repo.
 */

const OAPI_CODEGEN = 'github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.5.1';
const SOURCE = path.join(REPO, 'tests/generated-clients/go');
const WORK = path.join(CACHE_DIR, 'go-walk');

describe('Go client (oapi-codegen)', () => {
  it('is generated from openapi-3.0.json, builds, and walks the service', async () => {
    const world = await walkWorld();
    rmSync(WORK, { recursive: true, force: true });
    mkdirSync(path.join(WORK, 'finance'), { recursive: true });
    for (const file of ['main.go', 'go.mod', 'go.sum', 'cfg.yaml']) cpSync(path.join(SOURCE, file), path.join(WORK, file));
    const env = { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local', GOTELEMETRY: 'off' };
    await run('go', ['run', OAPI_CODEGEN, '-config', 'cfg.yaml', OPENAPI_30], { cwd: WORK, env, timeout: 600_000 });
    await run('go', ['build', '-o', 'walk', '.'], { cwd: WORK, env, timeout: 600_000 });
    const walk = await run(path.join(WORK, 'walk'), [], { env: world.env, timeout: 120_000 }).catch(
      (e: { stdout?: string; stderr?: string }) => {
        throw new Error(`go walk failed:\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
      },
    );
    for (const step of WALK_STEPS) expect(walk.stdout).toContain(`ok ${step}\n`);
    expect(walk.stdout.trim().split('\n').at(-1)).toBe('walk passed');
    expect(world.deliveries()).toBe(1);
  });
});
