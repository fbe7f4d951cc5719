/**
 * Writes the OpenAPI documents generated from the routers at the repo root: `openapi.json` (OAS 3.1)
 * and `openapi-3.0.json` (the same routers rendered as OAS 3.0.3, for tools that read only 3.0).
 *
 *   npm run openapi          regenerate both
 *   npm run openapi:check    exit 1 when a committed document differs from the routers
 *
 * Needs no database and no configuration: it only loads the routers and their contracts.
 */
import 'reflect-metadata';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument, type OpenApiVersion } from '../server/trpc/openapi.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const OPENAPI_FILE = path.join(ROOT, 'openapi.json');
export const OPENAPI_30_FILE = path.join(ROOT, 'openapi-3.0.json');

/** The exact text committed as openapi.json (or openapi-3.0.json): 2-space JSON with a trailing newline. */
export function renderOpenApi(version: OpenApiVersion = '3.1.0'): string {
  return JSON.stringify(buildOpenApiDocument(version), null, 2) + '\n';
}

const DOCUMENTS: { file: string; version: OpenApiVersion }[] = [
  { file: OPENAPI_FILE, version: '3.1.0' },
  { file: OPENAPI_30_FILE, version: '3.0.3' },
];

function main(argv: string[]): number {
  const check = argv.includes('--check');
  const unknown = argv.filter((a) => a !== '--check');
  if (unknown.length > 0) {
    console.error(`Unknown argument(s): ${unknown.join(' ')}\nUsage: tsx scripts/generate-openapi.ts [--check]`);
    return 2;
  }
  let status = 0;
  for (const { file, version } of DOCUMENTS) {
    const generated = renderOpenApi(version);
    const relative = path.relative(process.cwd(), file) || file;
    if (check) {
      if (!existsSync(file)) {
        console.error(`${relative} is missing: run npm run openapi`);
        status = 1;
        continue;
      }
      const committed = readFileSync(file, 'utf8');
      if (committed !== generated) {
        console.error(`${path.basename(file)} is out of date: run npm run openapi`);
        const diff = firstDifference(committed, generated);
        if (diff) console.error(diff);
        status = 1;
        continue;
      }
      console.log(`${relative} is up to date`);
      continue;
    }
    writeFileSync(file, generated);
    const doc = JSON.parse(generated) as { paths?: Record<string, object> };
    const operations = Object.values(doc.paths ?? {}).reduce((n, item) => n + Object.keys(item).length, 0);
    console.log(`wrote ${relative} (OAS ${version}, ${Object.keys(doc.paths ?? {}).length} paths, ${operations} operations)`);
  }
  return status;
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
