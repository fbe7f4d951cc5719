// The architecture rules of DESIGN.md §2, enforced by `npm run lint` (and so by CI):
//   - a domain imports another domain only through that domain's index.ts;
//   - server/lib, server/db and shared/ import no domain (process → trpc/http → domains → db/lib → shared);
//   - no import cycle under server/.
// tests/architecture/boundaries.test.ts proves each rule fails on a violation.
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

const DOMAIN_MESSAGE = 'Import another domain only through its index.ts, never its internals (DESIGN.md §2).';
const LAYER_MESSAGE = 'server/lib, server/db and shared/ are below the domains and must not import them (DESIGN.md §2).';

const zones = [
  // each domain: every other domain's folder is closed except its index.ts
  ...domains.map((domain) => ({
    target: domain,
    from: domains.filter((other) => other !== domain),
    except: ['index.ts'],
    message: DOMAIN_MESSAGE,
  })),
  // wiring files directly in server/domains belong to no domain: they too go through index.ts
  { target: `${domainsDir}/*.ts`, from: domains, except: ['index.ts'], message: DOMAIN_MESSAGE },
  { target: ['server/lib', 'server/db', 'shared'], from: domainsDir, message: LAYER_MESSAGE },
];

// TODO(issue 17): delete this list when the ledger-core change lands; then no file may cross.
// Crossings being removed by the ledger-core change (issue 17): files that still import another
// domain's internals. Every other file is held to the boundary rule today.
export const crossingsBeingRemoved = [
  'server/domains/accounting/reviews/after-approval.ts',
  'server/domains/accounting/reviews/review-decisions.ts',
  'server/domains/accounting/reviews/review-queue.ts',
  'server/domains/accounting/reviews/review-rows.ts',
  'server/domains/accounting/reviews/reviews.service.ts',
  'server/domains/accounting/sync/apply-external.ts',
  'server/domains/accounting/sync/conflicts.ts',
  'server/domains/accounting/sync/outbound-entry.ts',
  'server/domains/accounting/sync/pull.ts',
  'server/domains/accounting/sync/push-preconditions.ts',
  'server/domains/accounting/sync/push.ts',
  'server/domains/accounting/sync/stale-on-change.ts',
  'server/domains/accounting/sync/sync-events.ts',
  'server/domains/accounting/sync/sync.service.ts',
  'server/domains/accounting/webhooks/webhook-actions.ts',
  'server/domains/documents/document-changes.ts',
  'server/domains/documents/document-files.service.ts',
  'server/domains/documents/documents.http.ts',
  'server/domains/documents/documents.service.ts',
  'server/domains/entries/entries.service.ts',
  'server/domains/entries/entry-detail.ts',
  'server/domains/entries/export.http.ts',
  'server/domains/entries/lifecycle.ts',
  'server/domains/integrations/ingest-rules.ts',
  'server/domains/integrations/ingest-writes.ts',
  'server/domains/integrations/ingest.service.ts',
  'server/domains/reports/pdf/export-pdf.http.ts',
  'server/domains/subscriptions.ts',
  'server/domains/users/users.service.ts',
  'server/domains/workspaces/members.service.ts',
  'server/domains/workspaces/projects.service.ts',
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
    name: 'crossings being removed by the ledger-core change (issue 17)',
    files: crossingsBeingRemoved,
    rules: { 'import-x/no-restricted-paths': 'off' },
  },
];
