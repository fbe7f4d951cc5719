/**
 * Stored objects for the Schemathesis runs `stored-a`, `stored-b` and `stored-c` (scripts/schemathesis.sh, issue 30:
 * "enough examples per operation to cover every documented status"). Some documented answers need an object in a
 * given state: a 200 of POST /integrations/{id}/rotate-key needs an integration, one of PATCH
 * /accounting/reviews/{id}/reject a review still open, a 409 of DELETE /integrations/{id} one already revoked.
 * Schemathesis cannot make them (its made-up ids are 404s, and what the fuzzing runs reach by chance differs from run
 * to run), so this script makes them, as the admin through the public API, in a workspace of its own, and prints a
 * plan: for each run, per operation, the path and query parameters, headers, the JSON body or the form fields and
 * the file that name those objects. tests/conformance/hooks.py puts them into the requests of that operation in that
 * run; the checks then judge the answers against the document as in every other run. Each run plans one request
 * per operation, so an operation can have its 200 in one run, its 409 in the next and its 401 in the third.
 *
 * Usage: node --import tsx tests/conformance/stored-objects.ts BASE_URL ACCESS_TOKEN ADMIN_USER_ID > plan.json
 */

import { startGenericProvider } from '../emulators/generic-provider.js';

type Json = Record<string, unknown>;
type Planned = { path?: Json; query?: Json; headers?: Record<string, string>; body?: Json; file?: string };
const RUNS = ['stored-a', 'stored-b', 'stored-c'] as const;
type Part = Partial<Record<(typeof RUNS)[number], Record<string, Planned>>>;

const [base, token, adminId] = process.argv.slice(2);
const NOBODY = '00000000-0000-4000-8000-000000000000';
// a workspace and project of the plan's own, made after the fuzzing runs: none of their requests (a closed period
// over today, a voided entry) reaches what the plan stands on
let WORKSPACE = 0;
let PROJECT = 0;
const TODAY = new Date().toISOString().slice(0, 10);
/** The smallest PDF the upload sniffer and the extraction accept: one empty page. */
const PDF = [
  '%PDF-1.4',
  '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
  '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj',
  '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >> endobj',
  'trailer << /Root 1 0 R >>',
  '%%EOF',
].join('\n');

async function call<T = Json>(
  method: string,
  path: string,
  body?: unknown,
  form?: FormData,
  credential: Record<string, string> = {},
): Promise<T> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, ...credential };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    body: form ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : {}) as T;
}

let serial = 0;
const unique = (name: string) => `Schemathesis ${name} ${++serial}`;
const idOf = async <T extends string | number = string>(method: string, path: string, body?: unknown, form?: FormData) =>
  (await call<{ id: T }>(method, path, body, form)).id;
const party = () => idOf<number>('POST', '/parties', { workspaceId: WORKSPACE, name: unique('party'), partyType: 'ORGANIZATION' });
const entry = (entryType: 'INCOME' | 'EXPENSE', amountCents: number, more: Json = {}) =>
  idOf<number>('POST', '/entries', {
    projectId: PROJECT,
    entryType,
    baseCurrency: 'USD',
    amountCents,
    entryDate: TODAY,
    description: unique('entry'),
    ...more,
  });
const pdfForm = (fields: Record<string, string>) => {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  form.set('file', new Blob([PDF], { type: 'application/pdf' }), 'invoice.pdf');
  return form;
};
const inboxDocument = () => idOf('POST', '/inbox/documents', undefined, pdfForm({ workspaceId: String(WORKSPACE) }));
const closedPeriod = async (startDate: string, endDate: string) => {
  const id = await idOf('POST', '/accounting/periods', { workspaceId: WORKSPACE, name: unique('period'), startDate, endDate });
  await call('PATCH', `/accounting/periods/${id}/close`);
  return id;
};
const connection = (more: Json) =>
  idOf('POST', '/accounting/connections', {
    workspaceId: WORKSPACE,
    providerType: 'MANUAL',
    name: unique('connection'),
    credentials: {},
    ...more,
  });

async function accounting(): Promise<Part> {
  // a MANUAL connection without review or completeness: a push is SYNCED at once (CONTRACT §9)
  const manual = await connection({ syncMode: 'MANUAL_PUSH', requireReview: false, requireCompletenessForSync: false });
  const pushed = await entry('EXPENSE', 1200);
  const sync = await idOf('POST', '/accounting/sync/push', { entryId: pushed, connectionId: manual });
  await call('PATCH', `/entries/${pushed}`, { description: unique('edited after its push') }); // SYNCED → STALE
  const mapping = async (kind: 'parties' | 'taxes', body: Json) =>
    idOf('POST', `/accounting/mappings/${kind}`, { connectionId: manual, ...body });
  const partyMapping = await mapping('parties', {
    partyId: await party(),
    externalId: 'st-gone',
    externalType: 'Vendor',
    externalName: 'Gone',
  });
  const taxMapping = await mapping('taxes', { taxCode: 'STGONE', externalTaxCodeId: 'st-gone' });
  // reviews on a connection that requires them: a new entry of its projects is queued as it is created (CONTRACT §8)
  const reviewing = await connection({ syncMode: 'MANUAL_PUSH', requireReview: true });
  const review = async () => {
    const query = `connectionId=${reviewing}&entryId=${await entry('EXPENSE', 700)}`;
    return (await call<{ items: { id: string }[] }>('GET', `/accounting/reviews?${query}`)).items[0]!.id;
  };
  const [toReject, toSendBack, toApprove, toAssign, decided] = [
    await review(),
    await review(),
    await review(),
    await review(),
    await review(),
  ];
  await call('PATCH', `/accounting/reviews/${decided}/approve`, { notes: 'Approved before the run' });
  // an entry in a closed period: voiding it by the accounting system's webhook is a 409 (CONTRACT §10)
  const inClosedPeriod = await entry('EXPENSE', 300, { entryDate: '2001-03-15' });
  await closedPeriod('2001-03-01', '2001-03-31');
  const toReopen = await closedPeriod('2002-05-01', '2002-05-31');
  // a connection that checks X-Webhook-Secret: an event without it is a 401 (CONTRACT §10)
  const guarded = await connection({ config: { webhookSecret: 'a-secret-the-run-never-sends' } });
  const accountingEvent = async (action: string, entryId: number | Promise<number>, connectionId = manual) => ({
    path: { connectionId },
    body: { eventId: unique('event'), action, entryId: await entryId },
  });
  return {
    'stored-a': {
      'POST /webhooks/accounting/{connectionId}': await accountingEvent('ENTRY_APPROVED', entry('EXPENSE', 310)),
      'POST /accounting/mappings/parties': {
        body: { connectionId: manual, partyId: await party(), externalId: 'st-1', externalType: 'Vendor', externalName: 'One' },
      },
      'POST /accounting/mappings/parties/batch': {
        body: {
          connectionId: manual,
          mappings: [{ partyId: await party(), externalId: 'st-2', externalType: 'Customer', externalName: 'Two' }],
        },
      },
      'POST /accounting/mappings/taxes': { body: { connectionId: manual, taxCode: 'ST19', externalTaxCodeId: 'st-19', ratePercent: 19 } },
      'POST /accounting/mappings/projects': { body: { connectionId: manual, projectIds: [PROJECT] } },
      'POST /accounting/sync/push': { body: { entryId: await entry('INCOME', 3400), connectionId: manual } },
      'POST /accounting/syncs/{id}/retry': { path: { id: sync } },
      'DELETE /accounting/mappings/parties/{id}': { path: { id: partyMapping } },
      'DELETE /accounting/mappings/taxes/{id}': { path: { id: taxMapping } },
      'GET /accounting/reviews': { query: { workspaceId: WORKSPACE } },
      'POST /accounting/reviews': { body: { entryId: await entry('EXPENSE', 650), connectionId: manual } },
      'PATCH /accounting/reviews/{id}/reject': { path: { id: toReject }, body: { notes: 'Rejected by the run' } },
      'PATCH /accounting/reviews/{id}/request-changes': { path: { id: toSendBack }, body: { notes: 'Sent back by the run' } },
      'PATCH /accounting/reviews/{id}/approve': { path: { id: toApprove }, body: { notes: 'Approved by the run' } },
      'PATCH /accounting/reviews/{id}/assign': { path: { id: toAssign } },
      'PATCH /accounting/periods/{id}/reopen': { path: { id: toReopen } },
    },
    'stored-b': {
      'POST /webhooks/accounting/{connectionId}': await accountingEvent('ENTRY_VOIDED', inClosedPeriod),
      // the record stored-a retried is SYNCED: only one in CONFLICT can be resolved (409)
      'POST /accounting/sync/resolve-conflict': { body: { syncId: sync, resolution: 'KEEP_LOCAL' } },
      'GET /accounting/mappings/projects': { query: { connectionId: NOBODY } }, // no such connection: 404
      'GET /accounting/mappings/taxes': { query: { connectionId: NOBODY } },
      // a decided review takes no second decision (409)
      'PATCH /accounting/reviews/{id}/approve': { path: { id: decided }, body: { notes: 'A second decision' } },
      'PATCH /accounting/reviews/{id}/request-changes': { path: { id: decided }, body: { notes: 'A second decision' } },
      'PATCH /accounting/reviews/{id}/assign': { path: { id: decided } },
    },
    'stored-c': { 'POST /webhooks/accounting/{connectionId}': await accountingEvent('ENTRY_APPROVED', entry('EXPENSE', 320), guarded) },
  };
}

/**
 * A sync record in CONFLICT (CONTRACT §9: a pull finds the external record changed while the entry is STALE). Only
 * an external system makes one: a custom provider type, served by the tests' emulator of the generic HTTP adapter on
 * loopback (the script runs these runs with ACCOUNTING_ALLOW_PRIVATE_HOSTS=true for it). Keeping the external
 * version applies the snapshot the pull kept, so the emulator is no longer needed when the plan runs.
 */
async function syncConflict(): Promise<Part> {
  const provider = await startGenericProvider();
  try {
    const custom = await connection({
      providerType: 'SCHEMATHESIS_ERP',
      config: { baseUrl: provider.baseUrl },
      syncMode: 'MANUAL_PUSH',
      requireReview: false,
      requireCompletenessForSync: false,
    });
    const entryId = await entry('EXPENSE', 1500);
    const sync = await call<{ id: string; externalId: string }>('POST', '/accounting/sync/push', { entryId, connectionId: custom });
    await call('PATCH', `/entries/${entryId}`, { description: unique('edited here') }); // SYNCED → STALE
    provider.editExternally(sync.externalId, { description: 'Edited in the accounting system' });
    await call('POST', '/accounting/sync/pull', { connectionId: custom, since: '2000-01-01T00:00:00.000Z' }); // → CONFLICT
    return { 'stored-a': { 'POST /accounting/sync/resolve-conflict': { body: { syncId: sync.id, resolution: 'KEEP_EXTERNAL' } } } };
  } finally {
    await provider.close();
  }
}

async function banking(): Promise<Part> {
  const account = await idOf('POST', '/bank-accounts', {
    workspaceId: WORKSPACE,
    projectId: PROJECT,
    name: unique('account'),
    currency: 'USD',
    autoMatch: false, // the run matches its lines itself
  });
  const csvMapping = JSON.stringify({
    dateColumn: 'date',
    amountColumn: 'amount',
    descriptionColumn: 'text',
    dateFormat: 'YYYY-MM-DD',
    decimalSeparator: '.',
  });
  const texts = ['Kept', 'Undone', 'For an entry', 'To ignore', 'Ignored'];
  const form = new FormData();
  form.set('csvMapping', csvMapping);
  const csv = `date,amount,text\n${texts.map((text, i) => `${TODAY},-${12 + i}.34,${text}`).join('\n')}\n`;
  form.set('file', new Blob([csv], { type: 'text/csv' }), 'lines.csv');
  await call('POST', `/bank-accounts/${account}/statements`, undefined, form);
  const lines = await call<{ items: { id: string; description: string }[] }>('GET', `/bank-accounts/${account}/lines`);
  const line = (text: string) => lines.items.find((l) => l.description === text)!.id;
  const undone = await idOf('POST', '/reconciliation/matches', { lineIds: [line('Undone')], entryIds: [await entry('EXPENSE', 1334)] });
  await call('POST', `/bank-lines/${line('Ignored')}/ignore`, { reason: 'Set aside before the run' });
  return {
    'stored-a': {
      'POST /reconciliation/matches': { body: { lineIds: [line('Kept')], entryIds: [await entry('EXPENSE', 1234)] } },
      'DELETE /reconciliation/matches/{id}': { path: { id: undone } },
      'POST /bank-lines/{id}/create-entry': { path: { id: line('For an entry') }, body: { description: 'Made from a line by the run' } },
      'POST /bank-lines/{id}/ignore': { path: { id: line('To ignore') }, body: { reason: 'Set aside by the run' } },
      'POST /bank-lines/{id}/unignore': { path: { id: line('Ignored') } },
      'POST /bank-accounts/{id}/statements': {
        path: { id: account },
        body: { csvMapping },
        file: `date,amount,text\n${TODAY},99.00,Imported by the run\n`,
      },
    },
    // no such bank account: 404 (the fuzzing's made-up ids reach it only by chance: a run of this stop did not)
    'stored-b': { 'DELETE /bank-accounts/{id}': { path: { id: NOBODY } } },
  };
}

async function documentsAndEntries(): Promise<Part> {
  const [attached, toAttach, toCreateFrom, toDelete] = [
    await inboxDocument(),
    await inboxDocument(),
    await inboxDocument(),
    await inboxDocument(),
  ];
  await call('POST', `/inbox/documents/${attached}/attach`, { entryId: await entry('EXPENSE', 900) });
  const withDocuments = await entry('EXPENSE', 800);
  const requested = await idOf('POST', `/entries/${withDocuments}/documents/request`, {
    documentName: 'Receipt',
    documentType: 'PAYMENT_PROOF',
  });
  const upload = () =>
    idOf('POST', `/entries/${withDocuments}/documents/upload?workspaceId=${WORKSPACE}`, undefined, pdfForm({ documentType: 'BASIS' }));
  const [toApprove, toReject] = [await upload(), await upload()];
  return {
    'stored-a': {
      'POST /inbox/documents/{id}/attach': { path: { id: toAttach }, body: { entryId: await entry('EXPENSE', 1000) } },
      'DELETE /inbox/documents/{id}': { path: { id: toDelete } },
      'POST /entries/{entryId}/documents/upload': {
        path: { entryId: withDocuments },
        query: { workspaceId: WORKSPACE },
        body: { documentType: 'BASIS' },
        file: PDF,
      },
      'POST /inbox/documents/{id}/create-entry': {
        path: { id: toCreateFrom },
        body: { projectId: PROJECT, entryType: 'EXPENSE', amountCents: 4200, baseCurrency: 'USD', entryDate: TODAY },
      },
      'POST /entries/{entryId}/documents/{documentId}/fulfill': {
        path: { entryId: withDocuments, documentId: requested },
        body: { documentType: 'PAYMENT_PROOF' },
        file: PDF,
      },
      'PATCH /entries/{entryId}/documents/{documentId}/approve': { path: { entryId: withDocuments, documentId: toApprove } },
      'PATCH /entries/{entryId}/documents/{documentId}/reject': {
        path: { entryId: withDocuments, documentId: toReject },
        body: { reason: 'Not legible' },
      },
      'POST /entries/{id}/correct': { path: { id: await entry('INCOME', 7000) }, body: { reason: 'Wrong amount', amountCents: 7100 } },
      'POST /entries/{id}/reimburse': {
        path: { id: await entry('EXPENSE', 5000) },
        body: { amountCents: 2500, fromPartyId: await party(), toPartyId: await party() },
      },
    },
    'stored-b': { 'DELETE /inbox/documents/{id}': { path: { id: attached } } }, // attached: 409
  };
}

async function webhookDelivery(): Promise<Part> {
  // a delivery of a webhook.test event (CONTRACT §15) is sent again; nothing answers at that host, so it fails again
  const endpoint = await idOf('POST', '/webhook-endpoints', { workspaceId: WORKSPACE, url: 'https://hooks.example.com/finance' });
  const delivery = await idOf('POST', `/webhook-endpoints/${endpoint}/test`);
  return {
    'stored-a': {
      'POST /webhook-endpoints/{id}/deliveries/{deliveryId}/retry': { path: { id: endpoint, deliveryId: delivery } },
      'POST /webhook-endpoints/{id}/replay': { path: { id: endpoint }, body: { since: new Date(Date.now() - 3_600_000).toISOString() } },
    },
  };
}

async function people(): Promise<Part> {
  const integration = () =>
    call<{ id: string; apiKey: string }>('POST', '/integrations', { workspaceId: WORKSPACE, name: unique('integration') });
  const [rotated, removed, revoked, ingesting] = [await integration(), await integration(), await integration(), await integration()];
  await call('DELETE', `/integrations/${revoked.id}`);
  const appKey = () => idOf('POST', '/api-keys', { workspaceId: WORKSPACE, name: unique('app'), permissions: ['entry.create'] });
  const [keyToRevoke, keyRevoked] = [await appKey(), await appKey()];
  await call('DELETE', `/api-keys/${keyRevoked}`);
  const member = await idOf('POST', '/users', {
    email: `member-${Date.now()}@schemathesis.test`,
    name: 'Member',
    password: 'a-password-of-the-run-1',
    permissions: [],
  });
  await call('POST', `/workspaces/${WORKSPACE}/members`, { userId: member });
  const alone = await idOf<number>('POST', '/workspaces', { name: unique('workspace of one'), baseCurrency: 'USD' });
  // project codes are unique per workspace (409)
  await call('POST', '/projects', { workspaceId: WORKSPACE, name: unique('project'), code: 'STCODE' });
  const recoded = await idOf<number>('POST', '/projects', { workspaceId: WORKSPACE, name: unique('project') });
  // an Idempotency-Key the integration already used for another batch (CONTRACT §1: 409)
  const ingestKey = { 'X-API-Key': ingesting.apiKey, 'Idempotency-Key': 'schemathesis-ingest-once' };
  const batch = (externalId: string) => ({
    entries: [{ externalId, projectId: PROJECT, entryType: 'EXPENSE', amountCents: 100, baseCurrency: 'USD', entryDate: TODAY }],
  });
  await call('POST', '/api/v1/ingest', batch('st-first'), undefined, ingestKey);
  // and one the admin already used: its refresh and logout are refused before they end anything (409)
  const usedKey = { 'Idempotency-Key': 'schemathesis-used-once' };
  await call('POST', '/parties', { workspaceId: WORKSPACE, name: unique('keyed party'), partyType: 'ORGANIZATION' }, undefined, usedKey);
  return {
    'stored-a': {
      'POST /integrations/{id}/rotate-key': { path: { id: rotated.id } },
      'DELETE /integrations/{id}': { path: { id: removed.id } },
      'DELETE /api-keys/{id}': { path: { id: keyToRevoke } },
      // refused before anything changes (409: nobody deactivates themselves)
      'PATCH /users/{id}': { path: { id: adminId }, body: { isActive: false } },
      'DELETE /users/{id}': { path: { id: adminId } },
      // a workspace keeps at least one member (409)
      'DELETE /workspaces/{id}/members/{userId}': { path: { id: alone, userId: adminId } },
      'POST /fx-rates/import': { query: { workspaceId: WORKSPACE }, file: `date,currency,rate\n${TODAY},EUR,1.0825\n` },
      'PATCH /projects/{id}': { path: { id: recoded }, body: { code: 'STCODE' } },
      'POST /parties': { body: { workspaceId: WORKSPACE, name: unique('party'), partyType: 'ORGANIZATION' } },
    },
    'stored-b': {
      'POST /api/v1/ingest': { headers: ingestKey, body: batch('st-second') },
      'POST /auth/refresh': { headers: usedKey, body: {} },
      'POST /auth/logout': { headers: usedKey, body: {} },
      'DELETE /integrations/{id}': { path: { id: revoked.id } }, // revoked: 409
      'DELETE /api-keys/{id}': { path: { id: keyRevoked } },
      'DELETE /users/{id}': { path: { id: NOBODY } }, // no such user: 404
      'DELETE /workspaces/{id}/members/{userId}': { path: { id: WORKSPACE, userId: member } },
    },
    'stored-c': { 'DELETE /integrations/{id}': { path: { id: NOBODY } } }, // no such integration: 404
  };
}

async function booksAndPlans(): Promise<Part> {
  // the books (CONTRACT §23): two accounts of the plan's workspace, a manual journal to reverse once (then 409)
  const account = (code: string, accountType: string) =>
    idOf('POST', '/accounting/categories', { workspaceId: WORKSPACE, code, name: unique(`account ${code}`), accountType });
  const [cash, capital, rent] = [await account('1910', 'ASSET'), await account('2010', 'EQUITY'), await account('6310', 'EXPENSE')];
  const journal = (cents: number) => ({
    workspaceId: WORKSPACE,
    date: TODAY,
    description: unique('capital paid in'),
    lines: [
      { categoryId: cash, debitCents: cents },
      { categoryId: capital, creditCents: cents },
    ],
  });
  const toReverse = await idOf<number>('POST', '/ledger/journal', journal(5_000));
  const reversedBefore = await idOf<number>('POST', '/ledger/journal', journal(6_000));
  await call('POST', `/ledger/journal/${reversedBefore}/reverse`, {});
  // budgets and plans (CONTRACT §25, §16): a budget to read, keys to rotate, an inbox document to read
  const month = `${TODAY.slice(0, 7)}-01`;
  const budget = { workspaceId: WORKSPACE, name: unique('budget'), period: 'MONTH', startDate: month, periods: 3 };
  const line = { categoryId: rent, projectId: PROJECT, entryType: 'EXPENSE', amountCents: 250_000 };
  const toRead = await idOf('POST', '/budgets', { ...budget, lines: [line] });
  const toRotate = await idOf('POST', '/api-keys', { workspaceId: WORKSPACE, name: unique('app to rotate'), permissions: ['entry.create'] });
  const inboxed = await inboxDocument();
  // books too large for SAF-T: 11 journals of 100 debits of 10^15 cents, more than the 18 digits of SAFmonetaryType (409)
  const large = await idOf<number>('POST', '/workspaces', { name: unique('workspace of large books'), baseCurrency: 'USD' });
  const largeAccount = (code: string, accountType: string) =>
    idOf('POST', '/accounting/categories', { workspaceId: large, code, name: unique(`account ${code}`), accountType });
  const [vault, paidIn] = [await largeAccount('1910', 'ASSET'), await largeAccount('2010', 'EQUITY')];
  const MAX_LINE = 1_000_000_000_000_000;
  for (let i = 0; i < 11; i++) {
    await call('POST', '/ledger/journal', {
      workspaceId: large,
      date: TODAY,
      description: unique('large journal'),
      lines: [
        ...Array.from({ length: 100 }, () => ({ categoryId: vault, debitCents: MAX_LINE })),
        ...Array.from({ length: 100 }, () => ({ categoryId: paidIn, creditCents: MAX_LINE })),
      ],
    });
  }
  return {
    'stored-a': {
      'GET /ledger/journal/export': { query: { workspaceId: large, format: 'saft' } },
      // the plan's workspace has entries: its base currency stays (409, issue 51)
      'PATCH /workspaces/{id}': { path: { id: WORKSPACE }, body: { baseCurrency: 'EUR' } },
      'POST /ledger/journal': { body: journal(7_000) },
      'POST /ledger/journal/{id}/reverse': { path: { id: toReverse }, body: {} },
      'PUT /ledger/roles': { body: { workspaceId: WORKSPACE, roles: {} } },
      'POST /budgets': { body: { ...budget, name: unique('budget'), lines: [line] } },
      'GET /budgets/{id}': { path: { id: toRead } },
      'POST /api-keys/{id}/rotate': { path: { id: toRotate } },
      'GET /inbox/documents/{id}': { path: { id: inboxed } },
      'GET /inbox/documents/{id}/suggestions': { path: { id: inboxed } },
      'POST /rules/preview': {
        body: {
          workspaceId: WORKSPACE,
          conditions: [{ field: 'description', operator: 'contains', value: 'entry' }],
          actions: [{ type: 'SET_CATEGORY', categoryId: rent }],
        },
      },
    },
    'stored-b': { 'POST /ledger/journal/{id}/reverse': { path: { id: reversedBefore }, body: {} } }, // reversed once already: 409
  };
}

async function main() {
  WORKSPACE = await idOf<number>('POST', '/workspaces', { name: unique('workspace'), baseCurrency: 'USD' });
  PROJECT = await idOf<number>('POST', '/projects', { workspaceId: WORKSPACE, name: unique('project') });
  const plan = Object.fromEntries(RUNS.map((run) => [run, {} as Record<string, Planned>]));
  for (const part of [accounting, syncConflict, banking, documentsAndEntries, webhookDelivery, people, booksAndPlans]) {
    const planned = await part();
    for (const run of RUNS) {
      for (const [label, request] of Object.entries(planned[run] ?? {})) {
        if (plan[run]![label]) throw new Error(`${label} is planned twice in ${run}`);
        plan[run]![label] = request;
      }
    }
  }
  console.log(JSON.stringify(plan));
}

main().catch((err) => {
  console.error(String(err));
  process.exit(1);
});
