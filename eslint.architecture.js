// The architecture rules of DESIGN.md §2, enforced by `npm run lint` (and so by CI):
//   - a domain imports another domain only through that domain's index.ts, and so do the process,
//     except the ledger core (server/domains/entries/), which also imports the declared second face of a domain
//     that reacts to ledger changes, its reactions.ts (DESIGN §2a), and only the core does;
//     transports and seed outside server/domains (main.ts, app.ts, trpc/, http/, mcp/, seed/);
//   - server/lib, server/db and shared/ import no domain (process → trpc/http → domains → db/lib → shared);
//   - no import cycle under server/.
// tests/cross-cutting/architecture/boundaries.test.ts proves each rule fails on a violation.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { importX, createNodeResolver } from 'eslint-plugin-import-x';

const root = path.dirname(fileURLToPath(import.meta.url));
const domainsDir = 'server/domains';

/** Every domain folder (accounting is one domain with subfolders), read from disk so new domains are covered. */
const domains = fs
  .readdirSync(path.join(root, domainsDir), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => `${domainsDir}/${entry.name}`);

/** the ledger core: the one importer of the domains' reactions.ts faces */
const ENTRIES = `${domainsDir}/entries`;
const REACTIONS_MESSAGE = 'The ledger core imports another domain only through its index.ts or its reactions.ts face (DESIGN.md §2a).';
const DOMAIN_MESSAGE = 'Import another domain only through its index.ts, never its internals (DESIGN.md §2).';
const LAYER_MESSAGE = 'server/lib, server/db and shared/ are below the domains and must not import them (DESIGN.md §2).';

const zones = [
  // each domain: every other domain's folder is closed except its index.ts
  ...domains.map((domain) => ({
    target: domain,
    from: domains.filter((other) => other !== domain),
    except: domain === ENTRIES ? ['index.ts', 'reactions.ts'] : ['index.ts'],
    message: domain === ENTRIES ? REACTIONS_MESSAGE : DOMAIN_MESSAGE,
  })),
  // wiring files directly in server/domains belong to no domain: they too go through index.ts
  { target: `${domainsDir}/*.ts`, from: domains, except: ['index.ts'], message: DOMAIN_MESSAGE },
  // the process, the transports and the seed: each domain's one public face is its index.ts
  ...domains.map((domain) => ({
    target: ['server/*.ts', 'server/trpc', 'server/http', 'server/mcp', 'server/seed'],
    from: domain,
    except: ['index.ts'],
    message: DOMAIN_MESSAGE,
  })),
  { target: ['server/lib', 'server/db', 'shared'], from: domainsDir, message: LAYER_MESSAGE },
];

export const architecture = [
  {
    files: ['server/**/*.ts', 'shared/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // follow TypeScript sources (import-x only reads .js files unless told), parsed as ESLint parses them
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      // the sources import './x.js' for './x.ts' (NodeNext); resolve them the way tsc does
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.json'], extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: root, zones }],
    },
  },
  {
    files: ['server/**/*.ts'],
    plugins: { 'import-x': importX },
    rules: {
      // value imports only: type-only imports are erased by tsc and cannot form a runtime cycle
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // one access path: an express route declares its access through guardedRoute (server/http/guarded-route.ts),
    // as a procedure does through its builder, instead of checking the caller in its handler
    files: ['server/domains/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/auth/index.js'],
              importNames: ['authorizeRequest'],
              message: 'Declare the route with guardedRoute (server/http/guarded-route.ts) instead of calling authorizeRequest in it.',
            },
          ],
        },
      ],
    },
  },
];
