import { randomBytes } from 'node:crypto';
import { PERMISSIONS, type Permission } from '../../../shared/permissions.js';
import { addProjectMember, buildUser, buildWorkspace, login } from '../../support/factories/index.js';
import { WorkspaceMember } from '../../../server/db/models/index.js';
import { db } from '../../../server/db/database.js';
import { runtime } from '../../../server/runtime.js';
import type { Api, ApiResponse } from '../../support/http.js';
import type { ForeignIds } from './probe-requests.js';
import { buildTenantKeys, type TenantKeys } from './tenant-keys.js';

/**
 * Two tenants. The VICTIM workspace holds one object of every kind, each named with a marker
 * that must never reach another tenant; the ATTACKER workspace has its own data. Callers:
 * a member of the attacker workspace (every permission), a member of the victim's second project
 * only (every permission), and one caller per permission holding every OTHER permission while
 * being a member of both workspaces (so only the permission check can stop it).
 */

export type Caller = { id: string; email: string; password: string; token: string };

export type Tenants = {
  victim: {
    ids: ForeignIds;
    admin: Caller;
    apiKey: string;
    projectIds: number[];
    webhookSecret: string;
    /** the entry matched to the bank line of the victim's match (the other one, `ids.entryId`, stays unreconciled) */
    matchedEntryId: number;
    /** the victim's bank lines: `ids.bankLineId` (UNMATCHED) and the one of its match (MATCHED) */
    bankLineIds: number[];
  };
  attacker: { workspaceId: number; projectId: number; member: Caller; apiKey: string; integrationId: string };
  projectOnly: Caller;
  lacking: Map<Permission, Caller>;
  /** the same callers as apps' API keys (CONTRACT §19) */
  keys: TenantKeys;
  /** strings that appear only in the victim's data (names, contents, uuids, emails) */
  secrets: string[];
  /** of those, what the victim's project-only member may legitimately see (its workspace's and project's names) */
  visibleToProjectMember: string[];
};

function ok(res: ApiResponse, what: string): any {
  if (res.status !== 200 && res.status !== 201) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res.body;
}

async function caller(api: Api, permissions: readonly Permission[] = PERMISSIONS): Promise<Caller> {
  const user = await buildUser({ permissions, name: 'Caller' });
  return { ...user, token: await login(api, user) };
}

/** `lackingCallers: false` skips the 21 per-permission callers (suites that do not use them). */
export async function buildTenants(api: Api, opts: { lackingCallers?: boolean } = {}): Promise<Tenants> {
  const marker = `zzleak${randomBytes(5).toString('hex')}`;
  const visibleMarker = `zzvisible${randomBytes(5).toString('hex')}`;
  const webhookSecret = `whsec-${randomBytes(12).toString('hex')}`;

  const admin = await caller(api);
  const ws = await buildWorkspace({ members: [admin.id], name: `${visibleMarker} workspace`, projects: 2 });
  const [projectId, secondProjectId] = ws.projectIds;
  const t = { token: admin.token };
  await api.patch(`/projects/${projectId}`, { name: `${marker} project` }, t).then((r) => ok(r, 'rename project'));
  await api.patch(`/projects/${secondProjectId}`, { name: `${visibleMarker} project` }, t).then((r) => ok(r, 'rename project'));
  const party = ok(await api.post('/parties', { workspaceId: ws.id, name: `${marker} party`, partyType: 'ORGANIZATION' }, t), 'party');
  const tag = ok(await api.post('/tags', { workspaceId: ws.id, name: `${marker}-tag` }, t), 'tag');
  const entry = ok(
    await api.post(
      '/entries',
      {
        projectId,
        entryType: 'EXPENSE',
        amountCents: 12_345,
        baseCurrency: 'USD',
        entryDate: '2026-03-15',
        fromPartyId: party.id,
        description: `${marker} entry`,
        reference: `${marker}-ref`,
        tagIds: [tag.id],
      },
      t,
    ),
    'entry',
  );
  ok(await api.post(`/entries/${entry.id}/notes`, { content: `${marker} note` }, t), 'note');
  const document = ok(
    await api.post(`/entries/${entry.id}/documents/request`, { documentName: `${marker} invoice`, documentType: 'BASIS' }, t),
    'document',
  );
  const period = ok(
    await api.post(
      '/accounting/periods',
      { workspaceId: ws.id, name: `${marker} period`, startDate: '2025-01-01', endDate: '2025-01-31' },
      t,
    ),
    'period',
  );
  const category = ok(
    await api.post(
      '/accounting/categories',
      { workspaceId: ws.id, code: `${marker}`.slice(0, 20), name: `${marker} category`, accountType: 'EXPENSE' },
      t,
    ),
    'category',
  );
  const connection = ok(
    await api.post(
      '/accounting/connections',
      {
        workspaceId: ws.id,
        providerType: 'MANUAL',
        name: `${marker} connection`,
        credentials: {},
        config: { webhookSecret },
        requireCompletenessForSync: false,
        requireReview: false,
      },
      t,
    ),
    'connection',
  );
  const partyMapping = ok(
    await api.post(
      '/accounting/mappings/parties',
      {
        connectionId: connection.id,
        partyId: party.id,
        externalId: `${marker}-ext`,
        externalType: 'Vendor',
        externalName: `${marker} vendor`,
      },
      t,
    ),
    'party mapping',
  );
  const taxMapping = ok(
    await api.post(
      '/accounting/mappings/taxes',
      { connectionId: connection.id, taxCode: `${marker}-tax`, externalTaxCodeId: `${marker}-tx` },
      t,
    ),
    'tax mapping',
  );
  const sync = ok(await api.post('/accounting/sync/push', { connectionId: connection.id, entryId: entry.id }, t), 'push');
  const review = ok(await api.post('/accounting/reviews', { entryId: entry.id, connectionId: connection.id }, t), 'review');
  const integration = ok(await api.post('/integrations', { workspaceId: ws.id, name: `${marker} integration` }, t), 'integration');
  const rule = ok(
    await api.post(
      '/rules',
      {
        workspaceId: ws.id,
        name: `${marker} rule`,
        conditions: [{ field: 'description', operator: 'contains', value: `${marker} condition` }],
        actions: [{ type: 'SET_CATEGORY', categoryId: category.id }],
      },
      t,
    ),
    'rule',
  );
  const sources = ok(await api.get('/entry-sources', { ...t, query: { workspaceId: ws.id } }), 'entry sources') as { id: number }[];
  // a loopback URL (discard port: nothing listens) so that probing POST …/test never leaves the machine
  runtime().config.WEBHOOK_ALLOW_PRIVATE_HOSTS = true;
  const endpoint = ok(
    await api.post('/webhook-endpoints', { workspaceId: ws.id, url: 'http://127.0.0.1:9/victim', description: `${marker} endpoint` }, t),
    'webhook endpoint',
  );
  const delivery = ok(await api.post(`/webhook-endpoints/${endpoint.id}/test`, undefined, t), 'webhook test delivery');
  const bank = await buildBanking(api, t, { workspaceId: ws.id, projectId, partyId: party.id, marker });
  const fxRate = ok(
    await api.post('/fx-rates', { workspaceId: ws.id, currency: 'EUR', rateDate: '2026-03-15', rate: '1.0812' }, t),
    'fx rate',
  );

  const recurring = ok(
    await api.post(
      '/recurring-entries',
      {
        projectId,
        template: { entryType: 'EXPENSE', amountCents: 1000, baseCurrency: 'USD', description: `${marker} rent` },
        rrule: 'FREQ=MONTHLY;BYMONTHDAY=1',
        startDate: '2026-01-01',
      },
      t,
    ),
    'recurring entry',
  );
  const budget = ok(
    await api.post(
      '/budgets',
      {
        workspaceId: ws.id,
        name: `${marker} budget`,
        period: 'MONTH',
        startDate: '2026-01-01',
        periods: 3,
        lines: [{ entryType: 'EXPENSE', amountCents: 1 }],
      },
      t,
    ),
    'budget',
  );

  const attackerMember = await caller(api);
  const attackerWs = await buildWorkspace({ members: [attackerMember.id], name: 'Attacker workspace' });
  const keys = await buildTenantKeys(
    api,
    { token: admin.token, workspaceId: ws.id, secondProjectId, marker },
    { token: attackerMember.token, workspaceId: attackerWs.id },
    opts.lackingCallers !== false,
  );
  const inboxForm = new FormData();
  inboxForm.append('workspaceId', String(ws.id));
  inboxForm.append('file', new Blob([`${marker},receipt\n1,2\n`]), `${marker}.csv`);
  const inboxDocument = ok(await api.request('POST', '/inbox/documents', { ...t, rawBody: inboxForm }), 'inbox document');

  const journalTransactionId = await journalTransaction(ws.id, category.id, marker);

  const ids: ForeignIds = {
    apiKeyId: keys.victim.id,
    workspaceId: ws.id,
    projectId,
    entryId: entry.id,
    entrySourceId: sources[0].id,
    partyId: party.id,
    tagId: tag.id,
    userId: admin.id,
    documentId: document.id,
    periodId: period.id,
    connectionId: connection.id,
    categoryId: category.id,
    partyMappingId: partyMapping.id,
    taxMappingId: taxMapping.id,
    reviewId: review.id,
    syncId: sync.id,
    integrationId: integration.id,
    webhookEndpointId: endpoint.id,
    webhookDeliveryId: delivery.id,
    bankAccountId: bank.account.id,
    bankLineId: bank.unmatchedLine.id,
    bankMatchId: bank.match.id,
    ruleId: rule.id,
    fxRateId: fxRate.id,
    inboxDocumentId: inboxDocument.id,
    journalTransactionId,
    recurringEntryId: recurring.id,
    budgetId: budget.id,
  };

  const attackerIntegration = ok(
    await api.post('/integrations', { workspaceId: attackerWs.id, name: 'Attacker integration' }, { token: attackerMember.token }),
    'attacker integration',
  );

  const projectOnly = await caller(api);
  await addProjectMember(secondProjectId, projectOnly.id);

  const lacking = new Map<Permission, Caller>();
  await Promise.all(
    (opts.lackingCallers === false ? [] : PERMISSIONS).map(async (p) => {
      const c = await caller(
        api,
        PERMISSIONS.filter((x) => x !== p),
      );
      await WorkspaceMember.create({ workspaceId: ws.id, userId: c.id });
      await WorkspaceMember.create({ workspaceId: attackerWs.id, userId: c.id });
      lacking.set(p, c);
    }),
  );

  const uuids = [
    admin.id,
    document.id,
    period.id,
    connection.id,
    category.id,
    partyMapping.id,
    taxMapping.id,
    review.id,
    sync.id,
    integration.id,
    endpoint.id,
    bank.account.id,
    bank.statement.id,
    bank.match.id,
    rule.id,
    keys.victim.id,
    recurring.id,
    budget.id,
  ];
  return {
    victim: {
      ids,
      admin,
      apiKey: integration.apiKey,
      projectIds: ws.projectIds,
      webhookSecret,
      matchedEntryId: bank.matchedEntry.id,
      bankLineIds: [bank.unmatchedLine.id, bank.matchedLine.id],
    },
    attacker: {
      workspaceId: attackerWs.id,
      projectId: attackerWs.projectIds[0],
      member: attackerMember,
      apiKey: attackerIntegration.apiKey,
      integrationId: attackerIntegration.id,
    },
    projectOnly,
    lacking,
    keys,
    secrets: [marker, visibleMarker, admin.email, webhookSecret, integration.apiKey, keys.victim.apiKey, bank.accountNumber, ...uuids],
    visibleToProjectMember: [visibleMarker],
  };
}

/**
 * The victim's banking (CONTRACT §14): a USD bank account of its first project (auto-match off, a
 * full account number that must never come back), a CSV statement of two lines — money in, matched
 * by hand to an INCOME entry of the same amount, and money out, left UNMATCHED (a candidate of the
 * victim's EXPENSE entry, so its suggestions are not empty).
 */
async function buildBanking(
  api: Api,
  t: { token: string },
  v: { workspaceId: number; projectId: number; partyId: number; marker: string },
): Promise<{ account: any; accountNumber: string; statement: any; matchedLine: any; unmatchedLine: any; matchedEntry: any; match: any }> {
  const accountNumber = `${randomBytes(8).readBigUInt64BE() % 10n ** 18n}`.padStart(18, '7');
  const account = ok(
    await api.post(
      '/bank-accounts',
      {
        workspaceId: v.workspaceId,
        name: `${v.marker} bank account`,
        currency: 'USD',
        projectId: v.projectId,
        partyId: v.partyId,
        accountNumber,
        autoMatch: false,
      },
      t,
    ),
    'bank account',
  );
  const csv = [
    'Date,Amount,Text,Payee,Ref',
    `2026-03-14,50.00,${v.marker} deposit,${v.marker} payer,${v.marker}-in`,
    `2026-03-16,-123.45,${v.marker} card payment,${v.marker} payee,${v.marker}-out`,
  ].join('\n');
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), `${v.marker}-statement.csv`);
  form.append(
    'csvMapping',
    JSON.stringify({
      dateColumn: 'Date',
      amountColumn: 'Amount',
      descriptionColumn: 'Text',
      counterpartyColumn: 'Payee',
      referenceColumn: 'Ref',
      dateFormat: 'YYYY-MM-DD',
      decimalSeparator: '.',
    }),
  );
  const statement = ok(await api.request('POST', `/bank-accounts/${account.id}/statements`, { ...t, rawBody: form }), 'bank statement');
  const lines = ok(await api.get(`/bank-accounts/${account.id}/lines`, { ...t, query: { limit: 100 } }), 'bank lines').items as any[];
  const matchedLine = lines.find((l) => l.amountCents === 5_000);
  const unmatchedLine = lines.find((l) => l.amountCents === -12_345);
  if (lines.length !== 2 || !matchedLine || !unmatchedLine) throw new Error(`bank lines: ${JSON.stringify(lines)}`);
  const matchedEntry = ok(
    await api.post(
      '/entries',
      {
        projectId: v.projectId,
        entryType: 'INCOME',
        amountCents: 5_000,
        baseCurrency: 'USD',
        entryDate: '2026-03-14',
        toPartyId: v.partyId,
        description: `${v.marker} deposit entry`,
      },
      t,
    ),
    'entry to match',
  );
  const match = ok(await api.post('/reconciliation/matches', { lineIds: [matchedLine.id], entryIds: [matchedEntry.id] }, t), 'bank match');
  return { account, accountNumber, statement, matchedLine, unmatchedLine, matchedEntry, match };
}

/** A balanced journal transaction of the victim's books (CONTRACT §23), written into the tables: one debit and one credit on `categoryId`. */
async function journalTransaction(workspaceId: number, categoryId: string, marker: string): Promise<number> {
  return db().transaction(async (transaction) => {
    const [[row]] = (await db().query(
      `INSERT INTO journal_transactions (workspace_id, kind, txn_date, description) VALUES (:ws, 'MANUAL', '2026-03-20', :d) RETURNING id`,
      { replacements: { ws: workspaceId, d: `${marker} journal` }, transaction },
    )) as [{ id: number }[], unknown];
    await db().query(
      `INSERT INTO journal_lines (transaction_id, workspace_id, line_no, category_id, debit_cents, credit_cents, txn_date, kind)
       VALUES (:id, :ws, 1, :cat, 100, 0, '2026-03-20', 'MANUAL'), (:id, :ws, 2, :cat, 0, 100, '2026-03-20', 'MANUAL')`,
      { replacements: { id: row.id, ws: workspaceId, cat: categoryId }, transaction },
    );
    return Number(row.id);
  });
}
