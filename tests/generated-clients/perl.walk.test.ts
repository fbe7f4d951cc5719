import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPENAPI_30, REPO, run, walkWorld } from './harness.js';
import { ensureDebianPackages } from '../support/debian-package.js';

/**
 * Issue 30: Perl's OpenAPI::Client (Debian libopenapi-client-perl, installed with apt-get when
 * missing, as the other Debian tools of the suites) reads the committed OAS 3.0 rendition and walks
 * the service with it (perl/smoke.pl).
 */

const hasClient = () => spawnSync('perl', ['-MOpenAPI::Client', '-e', '1'], { stdio: 'ignore' }).status === 0;

const ensureClient = () => ensureDebianPackages(['libopenapi-client-perl'], hasClient, "Perl's OpenAPI::Client");

describe("Perl's OpenAPI::Client on openapi-3.0.json", () => {
  it('reads the 3.0 document and walks the service', async () => {
    await ensureClient();
    const world = await walkWorld();
    const smoke = await run('perl', [path.join(REPO, 'tests/generated-clients/perl/smoke.pl')], {
      env: { ...world.env, SPEC: OPENAPI_30 },
      timeout: 120_000,
    }).catch((e: { stdout?: string; stderr?: string }) => {
      throw new Error(`perl smoke failed:\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
    });
    for (const step of [
      'login',
      'create workspace and project',
      'create entry with Idempotency-Key',
      'list entries',
      'refund above amount is a 409',
      'unknown entry is a 404',
    ]) {
      expect(smoke.stdout).toContain(`ok ${step}\n`);
    }
    expect(smoke.stdout.trim().split('\n').at(-1)).toBe('smoke passed');
  });
});
