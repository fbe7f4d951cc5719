/**
 * Writes the OpenAPI document generated from the routers to `openapi.json` at the repo root.
 *
 *   npm run openapi          regenerate openapi.json
 *   npm run openapi:check    exit 1 when the committed openapi.json differs from the routers
 *
 * Needs no database and no configuration: it only loads the routers and their contracts.
 */
import 'reflect-metadata';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from '../server/trpc/openapi.js';

export const OPENAPI_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'openapi.json');

/** The exact text committed as openapi.json: 2-space JSON with a trailing newline. */
export function renderOpenApi(): string {
  return JSON.stringify(buildOpenApiDocument(), null, 2) + '\n';
}

function main(argv: string[]): number {
  const check = argv.includes('--check');
  const unknown = argv.filter((a) => a !== '--check');
  if (unknown.length > 0) {
    console.error(`Unknown argument(s): ${unknown.join(' ')}\nUsage: tsx scripts/generate-openapi.ts [--check]`);
    return 2;
  }
  const generated = renderOpenApi();
  const relative = path.relative(process.cwd(), OPENAPI_FILE) || OPENAPI_FILE;

  if (check) {
    if (!existsSync(OPENAPI_FILE)) {
      console.error(`${relative} is missing: run npm run openapi`);
      return 1;
    }
    const committed = readFileSync(OPENAPI_FILE, 'utf8');
    if (committed !== generated) {
      console.error(`openapi.json is out of date: run npm run openapi`);
      const diff = firstDifference(committed, generated);
      if (diff) console.error(diff);
      return 1;
    }
    console.log(`${relative} is up to date`);
    return 0;
  }

  writeFileSync(OPENAPI_FILE, generated);
  const doc = JSON.parse(generated) as { paths?: Record<string, object> };
  const operations = Object.values(doc.paths ?? {}).reduce((n, item) => n + Object.keys(item).length, 0);
  console.log(`wrote ${relative} (${Object.keys(doc.paths ?? {}).length} paths, ${operations} operations)`);
  return 0;
}

/** A short pointer to the first differing line, so CI logs show where the drift is. */
function firstDifference(committed: string, generated: string): string | undefined {
  const a = committed.split('\n');
  const b = generated.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) {
      return [
        `first difference at line ${i + 1}:`,
        `  committed: ${a[i] ?? '<end of file>'}`,
        `  generated: ${b[i] ?? '<end of file>'}`,
      ].join('\n');
    }
  }
  return undefined;
}

const invokedDirectly = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) process.exitCode = main(process.argv.slice(2));
