import { randomBytes } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { db } from '../../../server/db/database.js';
import { WorkspaceMember } from '../../../server/db/models/index.js';
import { runtime } from '../../../server/runtime.js';
import { seedDemo } from '../../../server/seed/demo.js';
import { buildUser, buildWorkspace, login } from '../../support/factories/index.js';
import { registerSecret, type Api } from '../../support/http.js';
import type { Pools } from './fuzz-values.js';
import { GRANTABLE } from './tenant-keys.js';

/**
 * The workspace the fuzzer works in: the demo seed (a year of entries, documents, a
 * connection with reviews, mappings, categories, periods) plus a second workspace for
 * cross-tenant ids, integrations (one whose key authenticates ingest) and spare users.
 */
export type FuzzWorld = {
  api: Api;
  adminId: string;
  token: string;
  /** a second admin session, used only by `POST /auth/logout` */
  logoutToken: string;
  /** an app's API key of the workspace with every permission a key may hold (CONTRACT §19) */
  appKey: string;
  apiKey: string;
  webhookSecret: string;
  workspaceId: number;
  otherWorkspaceId: number;
  /** real values by field name (`id` pools by path, see `idPoolFor`) */
  pools: Pools;
  tables: Record<string, readonly unknown[]>;
};

async function ids(sql: string, replacements: Record<string, unknown>): Promise<unknown[]> {
  const rows = await db().query<{ id: unknown }>(sql, { replacements, type: QueryTypes.SELECT });
  return rows.map((r) => r.id);
}

function expectOk(res: { status: number; text: string }, what: string): void {
  if (res.status >= 300) throw new Error(`fuzz world: ${what} failed: ${res.status} ${res.text}`);
}

export async function buildFuzzWorld(api: Api): Promise<FuzzWorld> {
  Object.assign(runtime().config, {
    INGEST_RATE_PER_MINUTE: 1_000_000,
    API_KEY_RATE_PER_MINUTE: 1_000_000,
    ACCOUNTING_PROVIDER_TIMEOUT_MS: 2_000,
  });
  const admin = await buildUser({ email: `fuzz-admin-${randomBytes(4).toString('hex')}@example.test` });
  const seeded = await seedDemo(admin.email, new Date('2026-06-15T12:00:00Z'));
  if (!seeded.workspaceId) throw new Error('fuzz world: demo seed did not run (database not empty)');
  const workspaceId = seeded.workspaceId;
  const token = await login(api, admin);
  const logoutToken = await login(api, admin);
  const other = await buildWorkspace({ projects: 2 });
  const otherAdmin = await buildUser();
  await WorkspaceMember.create({ workspaceId: other.id, userId: otherAdmin.id });
  const spare = [await buildUser(), await buildUser()];
  await WorkspaceMember.create({ workspaceId, userId: spare[0].id });

  const projects = await ids('SELECT id FROM projects WHERE workspace_id = :ws ORDER BY id', { ws: workspaceId });
  const ingest = await api.post('/integrations', { workspaceId, name: 'fuzz ingest' }, { token });
  expectOk(ingest, 'create ingest integration');
  const target = await api.post('/integrations', { workspaceId, name: 'fuzz target', projectIds: [projects[0]] }, { token });
  expectOk(target, 'create target integration');

  const appKey = await api.post('/api-keys', { workspaceId, name: 'fuzz app', permissions: GRANTABLE }, { token });
  expectOk(appKey, 'create app key');

  const webhookSecret = `whsec-${randomBytes(12).toString('hex')}`;
  const credential = `cred-${randomBytes(12).toString('hex')}`;
  registerSecret(webhookSecret);
  registerSecret(credential);
  const hooked = await api.post(
    '/accounting/connections',
    { workspaceId, providerType: 'MANUAL', name: 'fuzz hooks', credentials: { apiKey: credential }, config: { webhookSecret } },
    { token },
  );
  expectOk(hooked, 'create connection');

  // banking (CONTRACT §14): an account of the first project, a three-line statement, one line matched to an entry made from it
  const bank = await api.post(
    '/bank-accounts',
    { workspaceId, name: 'fuzz bank', currency: 'USD', projectId: projects[0], autoMatch: false },
    { token },
  );
  expectOk(bank, 'create bank account');
  const statement = new FormData();
  statement.append(
    'file',
    new Blob(['Date,Amount,Text\n2026-05-04,120.50,fuzz in\n2026-05-05,-42.00,fuzz out\n2026-05-06,-7.25,fuzz fee\n']),
    'fuzz.csv',
  );
  statement.append(
    'csvMapping',
    JSON.stringify({
      dateColumn: 'Date',
      amountColumn: 'Amount',
      descriptionColumn: 'Text',
      dateFormat: 'YYYY-MM-DD',
      decimalSeparator: '.',
    }),
  );
  expectOk(await api.request('POST', `/bank-accounts/${bank.body.id}/statements`, { token, rawBody: statement }), 'import bank statement');
  const bankLines = await ids('SELECT id FROM bank_lines WHERE bank_account_id = :id ORDER BY id', { id: bank.body.id });
  expectOk(await api.post(`/bank-lines/${bankLines[0]}/create-entry`, {}, { token }), 'entry from a bank line');

  const wss = { ws: workspaceId, other: other.id };
  const q = (table: string, extra = '') =>
    ids(`SELECT id FROM ${table} WHERE workspace_id IN (:ws, :other) ${extra} ORDER BY workspace_id = :other, id LIMIT 12`, wss);
  const tables: Record<string, readonly unknown[]> = {
    entries: await q('entries'),
    documents: await q('entry_documents'),
    projects: await q('projects'),
    parties: await q('parties'),
    tags: await q('tags'),
    periods: await q('accounting_periods'),
    connections: await q('accounting_connections'),
    categories: await q('accounting_categories'),
    partyMappings: await q('party_mappings'),
    taxMappings: await q('tax_mappings'),
    reviews: await q('accounting_reviews'),
    syncs: await q('accounting_syncs'),
    entrySources: await q('entry_sources'),
    rules: await q('rules'),
    integrations: [target.body.id, '00000000-0000-4000-8000-000000000000'],
    bankAccounts: [bank.body.id, '00000000-0000-4000-8000-000000000000'],
    bankLines: bankLines,
    bankMatches: await q('bank_matches'),
    workspaces: [workspaceId, other.id],
    // never the fuzzing admin itself: deactivating or demoting it would end the run
    users: [spare[0].id, spare[1].id, otherAdmin.id],
  };
  const pools: Pools = {
    workspaceId: tables.workspaces,
    projectId: tables.projects,
    entryId: tables.entries,
    documentId: tables.documents,
    partyId: tables.parties,
    fromPartyId: tables.parties,
    toPartyId: tables.parties,
    tagId: tables.tags,
    categoryId: tables.categories,
    parentId: tables.categories,
    connectionId: [hooked.body.id, ...tables.connections],
    reviewId: tables.reviews,
    syncId: tables.syncs,
    entrySourceId: tables.entrySources,
    userId: tables.users,
    reviewerId: [admin.id, ...tables.users],
    year: [2025, 2026],
    currency: ['USD', 'EUR'],
    baseCurrency: ['USD', 'EUR'],
    bankAccountId: tables.bankAccounts,
    lineId: tables.bankLines,
  };
  return {
    api,
    adminId: admin.id,
    token,
    logoutToken,
    appKey: appKey.body.apiKey,
    apiKey: ingest.body.apiKey,
    webhookSecret,
    workspaceId,
    otherWorkspaceId: other.id,
    pools,
    tables,
  };
}

const ID_TABLES: [RegExp, string][] = [
  [/^\/users\//, 'users'],
  [/^\/workspaces\//, 'workspaces'],
  [/^\/projects\//, 'projects'],
  [/^\/parties\//, 'parties'],
  [/^\/tags\//, 'tags'],
  [/^\/entries\//, 'entries'],
  [/^\/accounting\/periods\//, 'periods'],
  [/^\/accounting\/connections\//, 'connections'],
  [/^\/accounting\/categories\//, 'categories'],
  [/^\/accounting\/mappings\/parties\//, 'partyMappings'],
  [/^\/accounting\/mappings\/taxes\//, 'taxMappings'],
  [/^\/accounting\/reviews\//, 'reviews'],
  [/^\/accounting\/syncs\//, 'syncs'],
  [/^\/integrations\//, 'integrations'],
  [/^\/bank-accounts\//, 'bankAccounts'],
  [/^\/bank-lines\//, 'bankLines'],
  [/^\/reconciliation\/matches\//, 'bankMatches'],
  [/^\/rules\//, 'rules'],
];

/** Real ids for the `{id}` path parameter of an operation, chosen by its path. */
export function idPoolFor(world: FuzzWorld, path: string): readonly unknown[] {
  const hit = ID_TABLES.find(([re]) => re.test(path));
  return hit ? world.tables[hit[1]] : [];
}
