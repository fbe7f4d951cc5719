import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CACHE_DIR, OPENAPI_31, REPO, run, walkWorld, WALK_STEPS } from './harness.js';

/**
 * Issue 30: the Python client that openapi-python-client (pinned in python/requirements.txt)
 * generates from the committed openapi.json walks the service: login, an entry with an
 * Idempotency-Key and its replay, cursor pages to the end, an upload, the CSV, a typed 409 and a
 * webhook signature checked with the `standardwebhooks` package; a failed call's §2 body is the generated
 * ErrorBody in `parsed` (a typed 404). Generated code goes to the cache dir, never the repo.
 */

const REQUIREMENTS = path.join(REPO, 'tests/generated-clients/python/requirements.txt');
const VENV = path.join(CACHE_DIR, 'python-venv');
const OUT = path.join(CACHE_DIR, 'python-client');

/** A venv with the pinned requirements, rebuilt when they change. */
async function venv(): Promise<string> {
  const stamp = path.join(VENV, 'requirements.txt');
  const wanted = readFileSync(REQUIREMENTS, 'utf8');
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== wanted) {
    rmSync(VENV, { recursive: true, force: true });
    await run('python3', ['-m', 'venv', VENV]);
    await run(path.join(VENV, 'bin/pip'), ['install', '--quiet', '--disable-pip-version-check', '-r', REQUIREMENTS], { timeout: 300_000 });
    writeFileSync(stamp, wanted);
  }
  return path.join(VENV, 'bin');
}

/**
 * Model modules named by position, not by what they are: `…_response_200_…`, `…_additional_property`,
 * `…_type_0` (a member of an anonymous union): each is an anonymous schema that needs a name.
 */
function positionalModels(modelsDir: string): string[] {
  return readdirSync(modelsDir).filter((file) => /_response_\d{3}|additional_property|_type_\d+\.py$/.test(file));
}

describe('Python client (openapi-python-client)', () => {
  it('is generated from openapi.json and walks the service', async () => {
    const world = await walkWorld();
    const bin = await venv();
    rmSync(OUT, { recursive: true, force: true });
    const config = path.join(CACHE_DIR, 'python-client.yaml');
    writeFileSync(config, 'package_name_override: finance_client\npost_hooks: []\n');
    await run(
      path.join(bin, 'openapi-python-client'),
      ['generate', '--path', OPENAPI_31, '--output-path', path.join(OUT, 'finance_client'), '--meta', 'none', '--config', config],
      {
        timeout: 300_000,
      },
    );
    expect(positionalModels(path.join(OUT, 'finance_client/models'))).toEqual([]);
    const walk = await run(path.join(bin, 'python'), [path.join(REPO, 'tests/generated-clients/python/walk.py')], {
      env: { ...world.env, PYTHONPATH: OUT },
      timeout: 120_000,
    }).catch((e: { stdout?: string; stderr?: string }) => {
      throw new Error(`python walk failed:\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
    });
    for (const step of WALK_STEPS) expect(walk.stdout).toContain(`ok ${step}\n`);
    expect(walk.stdout).toContain('ok a missing entry is a typed 404\n');
    expect(walk.stdout.trim().split('\n').at(-1)).toBe('walk passed');
    expect(world.deliveries()).toBe(1);
  });
});
