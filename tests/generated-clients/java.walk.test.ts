import { cpSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CACHE_DIR, OPENAPI_30, REPO, run, walkWorld, WALK_STEPS } from './harness.js';

/**
 * Issues 30 and 52: the Java client that openapi-generator (Maven plugin 7.25.0, the newest whose
 * modules this registry serves together: 7.27.0 is listed, its openapi-generator-core is not; generator
 * `java` with its default library `okhttp-gson`) generates from the committed openapi-3.0.json (its CSV
 * download is `format: binary` there, handed back as a File) builds and walks the service. With
 * errorObjectType ErrorBody a failed call's §2 body is typed on the exception (`getErrorObject()`, a
 * typed 404 and 409). The client sends an enum form field as an `application/json` part (`"BASIS"`),
 * which the service reads as JSON. The webhook signature is checked with the Standard Webhooks Java
 * library. Versions are pinned in java/pom.xml; the project is copied to the cache dir and built there
 * (generated code never in the repo).
 */

/** Model classes named by position (`RuleConditionAnyOf9`, `…OneOf1`): each an anonymous schema that needs a name. */
function positionalModels(modelsDir: string): string[] {
  return readdirSync(modelsDir).filter((file) => /(?:AnyOf|OneOf|AllOf)\d*\.java$|[a-z]\d+\.java$/.test(file));
}

const SOURCE = path.join(REPO, 'tests/generated-clients/java');
const WORK = path.join(CACHE_DIR, 'java-walk');

describe('Java client (openapi-generator, okhttp-gson)', () => {
  it('is generated from openapi-3.0.json, compiles, and walks the service', async () => {
    const world = await walkWorld();
    rmSync(WORK, { recursive: true, force: true });
    cpSync(SOURCE, WORK, { recursive: true });
    await run(
      'mvn',
      ['-B', '-q', `-Dopenapi.spec=${OPENAPI_30}`, 'compile', 'dependency:build-classpath', '-Dmdep.outputFile=classpath.txt'],
      { cwd: WORK, timeout: 900_000, maxBuffer: 64 * 1024 * 1024 },
    );
    expect(positionalModels(path.join(WORK, 'target/generated-sources/openapi/src/main/java/finance/model'))).toEqual([]);
    const classpath = [path.join(WORK, 'target/classes'), readFileSync(path.join(WORK, 'classpath.txt'), 'utf8').trim()].join(
      path.delimiter,
    );
    const walk = await run('java', ['-cp', classpath, 'walk.Walk'], { env: world.env, timeout: 120_000 }).catch(
      (e: { stdout?: string; stderr?: string }) => {
        throw new Error(`java walk failed:\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
      },
    );
    for (const step of WALK_STEPS) expect(walk.stdout).toContain(`ok ${step}\n`);
    expect(walk.stdout).toContain('ok a missing entry is a typed 404\n');
    expect(walk.stdout.trim().split('\n').at(-1)).toBe('walk passed');
    expect(world.deliveries()).toBe(1);
  });
});
