import type { OpenAPIObject } from 'trpc-to-openapi';

/**
 * The descriptions of openapi.json that the procedures' meta does not carry: what each operation
 * does, in CONTRACT's words (section in brackets), and what each parameter means. Kept here, keyed by
 * operationId and parameter name, so routers keep one-line metas. A procedure's own `description`
 * wins over this table.
 */
export const OPERATION_DESCRIPTIONS: Record<string, string> = {
  // §25 recurring entries and budgets
  listRecurringEntries:
    'The recurring entries of a workspace, oldest first, paged; project members see those of their projects. `projectId` narrows to one project.',
  getRecurringEntry: 'One recurring entry with its template, rule, window and the next date the scheduler makes.',
  listBudgets:
    'The budgets of a workspace, oldest first, with their lines (any member of the whole workspace; project members get 403, as on the report).',
  getBudget: 'One budget with its lines (any member of its workspace; project members get 403).',
  updateBudget:
    'Changes the name, period kind, start, number of periods or lines (replaced as a whole, numbered by position). A change of the lines or periods forgets which lines were reported exceeded.',
  deleteBudget: 'Deletes the budget and its lines.',
  // §4 auth
  login:
    'Exchanges email and password for a 15-minute bearer token. A wrong email or password is a 401 with the same message. ' +
    'After 10 failed attempts for one email within 15 minutes, further attempts get 429 with `Retry-After` until the window passes.',
  logout: 'Revokes the current session: its tokens then get 401 everywhere.',
  getMe: 'The caller with its permissions and workspace memberships, read live (changes take effect at once).',
  // §4 users
  listUsers: 'Users sharing a workspace with the caller (and those it created). Passwords are never returned.',
  createUser:
    'Creates a user with `{email, name, password, permissions}`. A caller can grant only permissions it holds (else 403); ' +
    'emails are unique, ignoring case (409); passwords have at least 10 characters.',
  updateUser:
    'Changes the name, password, permissions or active flag of a user. The caller must reach every workspace and project of that ' +
    'user (else 403, nothing changes). Changing one’s own password needs `currentPassword`; any password change revokes every ' +
    'other session of that user.',
  deactivateUser: 'Deactivates the user and revokes its sessions (same reach rule as editing).',
  // §4 workspaces and projects
  listWorkspaces: 'The workspaces the caller is a member of.',
  createWorkspace: 'Creates a workspace reporting in `baseCurrency`; the creator becomes its member.',
  getWorkspace: 'One workspace the caller is a member of.',
  updateWorkspace:
    'Renames a workspace or changes its base currency. The base currency changes only while the workspace has no entry, no FX rate and no bank account (409 after: stored base amounts and closed periods are stated in it).',
  listWorkspaceMembers: 'The users who are members of the workspace (members reach every project of it).',
  addWorkspaceMember: 'Makes a user a member of the workspace.',
  removeWorkspaceMember: 'Removes a user’s membership of the workspace.',
  listProjects: 'The projects of a workspace the caller reaches (all of them for a member, its own for a project member).',
  createProject: 'Creates a project in a workspace; `code` is unique per workspace (409).',
  updateProject: 'Renames a project or changes its code.',
  addProjectMember: 'Gives a user access to this project only: its entries and their documents, notes and events.',
  removeProjectMember: 'Takes a user’s access to this project away.',
  // §4 parties, tags, entry sources
  listEntrySources: 'Where entries come from: the built-in MANUAL source, one per integration and one per bank account.',
  listParties: 'The people and organisations of a workspace that entries are from or to.',
  createParty: 'Creates a party (`PERSON` or `ORGANIZATION`, optional ISO 3166-1 country, email and tax id).',
  updateParty: 'Changes a party; `null` clears an optional field.',
  listTags: 'The tags of a workspace; archived (deleted) ones only with `includeArchived=true`.',
  createTag: 'Creates a tag; names are unique per workspace (409).',
  updateTag: 'Renames or recolours a tag (names stay unique per workspace).',
  deleteTag:
    'Archives the tag: it disappears from the tag list, cannot be added to entries (400) and stays on the entries that carry it. ' +
    'Its name becomes free.',
  // §5 entries
  listEntries:
    'Entries of a workspace, filtered (type, status, project, party, tags with OR logic, dates, amounts, reconciled, `search` ' +
    'in description and reference) and sorted, ties broken by id. Pages by `offset` or by cursor: pass the page’s ' +
    '`nextCursor` as `cursor` with the same filters to get the next page (null on the last one).',
  createEntry:
    'Creates a PENDING entry. Project, parties, tags and source must be of the same workspace (400); line items must add up ' +
    'to `amountCents` (400); a date in a closed period is a 409. Rules with trigger CREATE run first, and a connection that ' +
    'requires review queues it at once (the entry is then UNDER_REVIEW).',
  getEntry: 'The entry with its line items, payments, documents, tags and both parties.',
  updateEntry:
    'Edits an entry. 409 when it is VOIDED or CANCELLED, when its current or new date is in a closed period, or when the amount ' +
    'would fall below what was already refunded or reimbursed. Marks a SYNCED sync STALE; re-queues a review that asked for changes.',
  replaceEntryTags: 'Replaces the entry’s tags. 409 on VOIDED or CANCELLED entries and in closed periods.',
  reconcileEntry:
    '`isReconciled: true` sets `reconciledAt` and `reconciledBy`; false clears them. 409 on VOIDED or CANCELLED entries and on ' +
    'entries in a bank match (delete the match instead).',
  updateEntryStatus:
    'Moves the entry to another status as the transition table allows (REJECTED, CANCELLED and VOIDED need a `reason`); any ' +
    'other transition, including to the same status, is a 409.',
  voidEntry: 'Voids the entry with a reason. 409 if it is already VOIDED or CANCELLED, or dated in a closed period.',
  refundEntry:
    'Creates the refund: a new PENDING entry of the opposite type, parties swapped, linked REFUND, and returns it. 409 when the ' +
    'original is VOIDED, REJECTED or CANCELLED, when the amount exceeds what remains unrefunded, or in a closed period. The ' +
    'refund that completes the amount voids the original ("Fully refunded").',
  reimburseEntry:
    'Creates a reimbursement of an EXPENSE entry (else 409): a new PENDING entry linked REIMBURSEMENT. The total reimbursed ' +
    'never exceeds the original amount (409).',
  correctEntry:
    'Voids the original and creates its corrected replacement (PENDING, linked CORRECTION) in one transaction, the accounting ' +
    'way to change a COMPLETED or synced entry. Refund and reimbursement caps carry over (409 when they would break).',
  listRelatedEntries: 'The refunds, reimbursements and corrections linked to the entry, each with its role in the link.',
  listEntryNotes: 'The entry’s notes, newest first.',
  addEntryNote: 'Adds a note (1 to 10,000 characters) and records NOTE_ADDED.',
  listEntryEvents: 'The entry’s audit trail, oldest first; events are append-only and hash-chained.',
  verifyEntryEvents: 'Recomputes the entry’s event hash chain and names the first event that does not match.',
  exportEntriesCsv:
    'Every entry matching the list filters, streamed as CSV (no paging). Amounts in major units of their currency, cells that ' +
    "a spreadsheet would run as a formula prefixed with `'`.",
  // §6 documents
  listEntryDocuments: 'The entry’s documents, oldest first.',
  requestEntryDocument: 'Asks for a document: a REQUESTED placeholder without a file (the entry is incomplete until it is fulfilled).',
  getEntryDocument: 'One document of the entry.',
  approveEntryDocument: 'Approves an UPLOADED or REJECTED document (else 409) and recomputes the entry’s completeness.',
  rejectEntryDocument: 'Rejects an UPLOADED or APPROVED document with a reason (else 409).',
  // §7 accounting
  listConnections: 'The accounting connections of a workspace; credentials and webhook secrets are never returned.',
  getConnection: 'One accounting connection (credentials omitted).',
  deactivateConnection: 'Deactivates the connection: it can no longer push, pull, take reviews or webhooks.',
  backfillReviews:
    'Queues one review for every non-voided entry of the connection’s projects that has none for it; a second call queues 0.',
  listCategories: 'The chart of accounts of a workspace; inactive categories only with `includeInactive=true`.',
  createCategory: 'Creates a category; `code` is unique per workspace (409), a parent must have the same account type.',
  updateCategory: 'Changes a category (no cycles of parents: 400).',
  deactivateCategory: 'Deactivates a category: it can no longer be given to entries.',
  listPartyMappings: 'The connection’s mappings of parties to external records.',
  createPartyMapping: 'Maps a party to an external record; one per connection and party (409).',
  batchUpsertPartyMappings: 'Creates or updates up to 500 party mappings at once.',
  deletePartyMapping: 'Deletes a party mapping.',
  listTaxMappings: 'The connection’s mappings of tax codes to external tax codes.',
  createTaxMapping: 'Maps a tax code to an external tax code; one per connection and tax code (409).',
  deleteTaxMapping: 'Deletes a tax mapping.',
  getProjectRouting: 'The projects the connection covers (an empty list means every project of the workspace).',
  setProjectRouting: 'Replaces the projects the connection covers.',
  listPeriods: 'The accounting periods of a workspace.',
  createPeriod: 'Creates an OPEN period; periods of a workspace may not overlap (409).',
  getPeriod: 'One accounting period.',
  deletePeriod: 'Deletes an OPEN period (a CLOSED one: 409).',
  closePeriod:
    'Closes the period: entries dated in it can no longer be created, edited, voided, refunded or pushed, and its totals never move.',
  reopenPeriod: 'Reopens a CLOSED period.',
  // §8 reviews
  listReviews: 'Reviews of a workspace or a connection, newest first, paged.',
  createReview: 'Queues an entry for review (QUEUED; the entry becomes UNDER_REVIEW). 409 while another is open for it.',
  getReview: 'One review with its entry.',
  assignReview: 'The caller becomes the reviewer (QUEUED or IN_REVIEW → IN_REVIEW).',
  approveReview:
    'Approves the review (optionally with a category and notes); the entry becomes COMPLETED and, with an auto-pushing ' +
    'connection, is pushed.',
  rejectReview: 'Rejects the review with notes; the entry becomes REJECTED.',
  requestReviewChanges: 'Sends the entry back for changes with notes; it becomes PENDING until edited.',
  batchRejectReviews: 'Rejects up to 100 reviews, each in its own transaction, and reports each outcome.',
  // §9 sync
  pullChartOfAccounts: 'Imports the accounting system’s accounts as categories, by external id.',
  pullParties: 'Imports the accounting system’s parties, with their party mappings.',
  resolveSyncConflict: 'Resolves a sync record in CONFLICT by keeping the local or the external version (else 409).',
  getEntrySyncs: 'The sync records of an entry, one per connection.',
  listPendingSyncs: 'The PENDING sync records of a connection.',
  listSyncs: 'The sync records of a workspace with their connection and entry, paged.',
  retrySyncBatch: 'Pushes up to 100 FAILED, STALE or CONFLICT sync records again.',
  // §10 integrations
  listIntegrations: 'The integrations (ingest API keys) of a workspace; keys are never shown again.',
  createIntegration: 'Creates an integration and its API key, shown only in this response.',
  rotateIntegrationKey: 'Issues a new API key; the old one stops working at once.',
  revokeIntegration: 'Revokes the integration and its API key.',
  // §14 banking
  listBankAccounts: 'The bank accounts of a workspace.',
  createBankAccount: 'Creates a bank account and its entry source; the full account number is never returned.',
  getBankAccount: 'One bank account.',
  updateBankAccount: 'Changes a bank account.',
  deactivateBankAccount: 'Deactivates the account; imports and matches on it are then a 409.',
  listBankStatements: 'The statements imported on the account.',
  listBankLines: 'The account’s lines by booking date then id, filtered by status, dates and text, paged.',
  autoMatchBankAccount: 'Matches every line that has exactly one candidate entry of its exact amount; nothing ambiguous.',
  getBankReconciliation: 'The account’s balances and matched, unmatched and ignored sums as of a date.',
  ignoreBankLine: 'Sets an UNMATCHED line aside with a reason (IGNORED); else 409.',
  unignoreBankLine: 'Brings an IGNORED line back (UNMATCHED); else 409.',
  suggestBankLineMatches: 'At most 5 entries or groups of entries whose amounts equal the line’s, best first, with the reasons.',
  createBankMatch:
    'Matches UNMATCHED lines of one account with candidate entries whose signed amounts add up to the lines’ (else 409); the ' +
    'entries become reconciled.',
  getBankMatch: 'One bank match.',
  deleteBankMatch: 'Undoes a match: its lines become UNMATCHED and its entries unreconciled.',
  // §15 outbound webhooks
  listWebhookEndpoints: 'The webhook endpoints of a workspace; secrets are never shown again.',
  createWebhookEndpoint:
    'Registers a URL to be called on the chosen event types (none = all), signed as Standard Webhooks says; its `whsec_` ' +
    'secret is shown only in this response.',
  getWebhookEndpoint: 'One webhook endpoint.',
  updateWebhookEndpoint: 'Changes the URL, event types, description or active flag of an endpoint.',
  deleteWebhookEndpoint: 'Removes the endpoint and its pending deliveries.',
  rotateWebhookSecret: 'Issues a new signing secret; for 24 hours deliveries carry a second signature with the old one.',
  listWebhookDeliveries: 'The endpoint’s deliveries, newest first, paged.',
  retryWebhookDelivery: 'Sends a delivery again now (same `webhook-id`) and returns it with the outcome.',
  replayWebhookEvents: 'Queues again every event of a time window that the endpoint subscribes to.',
  testWebhookEndpoint: 'Sends a `webhook.test` event to this endpoint now and returns the delivery.',
  listWebhookEvents: 'The workspace’s events, oldest first, paged, for consumers that poll or catch up.',
  // §19 API keys for apps
  listApiKeys: 'The API keys of a workspace, as a plain array; a key’s secret is never shown again.',
  getApiKey: 'One API key of a workspace the caller is a member of (never its secret).',
  revokeApiKey: 'Revokes the key at once: its next call is a 401.',
  rotateApiKey:
    'Issues a new secret for the key, shown only in this response; the old secret keeps working for `graceSeconds` ' +
    '(0 to 86,400, default 0), then 401.',
  // §21 inbox
  getInboxDocument: 'One document of the workspace’s inbox with what was read from it (extraction).',
  deleteInboxDocument: 'Deletes an inbox document while it is UNATTACHED (else 409).',
  // §16 rules
  listRules: 'The rules of a workspace, by priority ascending then creation.',
  getRule: 'One rule.',
  updateRule: 'Changes a rule.',
  deleteRule: 'Deletes a rule; entries it changed keep their changes.',
};

/** Path segment → the object a path parameter `id` names. */
const OBJECT_OF_SEGMENT: Record<string, string> = {
  users: 'user',
  workspaces: 'workspace',
  projects: 'project',
  parties: 'party',
  tags: 'tag',
  entries: 'entry',
  journal: 'journal transaction',
  integrations: 'integration',
  'bank-accounts': 'bank account',
  'bank-lines': 'bank line',
  matches: 'bank match',
  'webhook-endpoints': 'webhook endpoint',
  rules: 'rule',
  'fx-rates': 'FX rate',
  periods: 'accounting period',
  connections: 'accounting connection',
  categories: 'category',
  syncs: 'sync record',
  taxes: 'tax mapping',
  reviews: 'review',
  documents: 'document',
  'api-keys': 'API key',
  inbox: 'inbox document',
  'recurring-entries': 'recurring entry',
  budgets: 'budget',
};

/** Parameters by name, in the words of CONTRACT §3, §5 and the reports. */
export const PARAMETER_DESCRIPTIONS: Record<string, string> = {
  userId: 'The user’s id',
  entryId: 'The entry’s id',
  documentId: 'The document’s id',
  connectionId: 'The accounting connection’s id',
  deliveryId: 'The delivery’s id',
  workspaceId: 'The workspace (the caller must be a member of it, else 403)',
  projectId: 'Only this project',
  partyId: 'Only entries from or to this party',
  includeArchived: '`true` to include archived (deleted) tags',
  includeInactive: '`true` to include inactive categories',
  tagIds: 'Entries carrying any of these tags (comma, repeated or bracket form)',
  entryType: 'INCOME or EXPENSE',
  entryStatus: 'Only these statuses (comma, repeated or bracket form)',
  fromDate: 'From this date (YYYY-MM-DD, inclusive)',
  toDate: 'Up to this date (YYYY-MM-DD, inclusive)',
  from: 'Start of the period (YYYY-MM-DD, inclusive)',
  to: 'End of the period (YYYY-MM-DD, inclusive)',
  amountMin: 'Smallest amount in cents (inclusive)',
  amountMax: 'Largest amount in cents (inclusive)',
  search: 'Case-insensitive substring of the description or reference (`%` and `_` are literal)',
  isReconciled: '`true` or `false`',
  sortBy: 'The field to sort by (ties broken by id in the same direction)',
  sortOrder: '`asc` or `desc`',
  limit: 'Page size, 1 to 100 (default 20)',
  offset: 'Rows to skip (default 0); with a `cursor` only 0',
  cursor: 'The `nextCursor` of the previous page (same filters and sort): the next page, as fast at any depth',
  currency: 'Only this ISO 4217 currency',
  normalize: '`true`: amounts converted into the workspace’s base currency with the entries’ FX rates (CONTRACT §17)',
  groupBy: 'Bucket size: day, week or month',
  status: 'Only this status',
  reviewerId: 'Only reviews taken by this user',
  asOf: 'The date the status is computed for (YYYY-MM-DD, default today)',
  type: 'Only this event type',
  since: 'Only events created at or after this instant',
  categoryId: 'Only this account (a category of the workspace)',
  kind: 'Only journal transactions of this kind',
  side: 'RECEIVABLE (income not yet received) or PAYABLE (expenses not yet paid)',
  format: 'csv (RFC 4180) or saft (SAF-T Financial 1.30 XML)',
  budgetId: 'The budget’s id',
};

type Parameter = { name?: string; in?: string; description?: string; $ref?: string };
type Operation = { operationId?: string; description?: string; parameters?: Parameter[] };

/** What a path parameter `id` names: the object of the path segment before it. */
function idDescription(path: string, name: string): string | undefined {
  const segments = path.split('/').filter(Boolean);
  const at = segments.indexOf(`{${name}}`);
  const before = segments[at - 1];
  const object = before === 'parties' && segments[1] === 'mappings' ? 'party mapping' : before && OBJECT_OF_SEGMENT[before];
  return object ? `The ${object}’s id` : undefined;
}

/**
 * Gives every operation and parameter its description from the tables above. One left without is
 * not an error here (the server builds this document at start and must not fail for it): Redocly's
 * `operation-description` and `parameter-description` rules fail `npm run openapi:lint` instead.
 */
export function describe(doc: OpenAPIObject): void {
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, Operation>)) {
      if (!operation || typeof operation !== 'object') continue;
      operation.description ??= operation.operationId ? OPERATION_DESCRIPTIONS[operation.operationId] : undefined;
      for (const parameter of operation.parameters ?? []) {
        if (parameter.$ref || parameter.description || !parameter.name) continue;
        const description =
          (parameter.in === 'path' && parameter.name === 'id' ? idDescription(path, parameter.name) : undefined) ??
          PARAMETER_DESCRIPTIONS[parameter.name];
        if (description) parameter.description = description;
      }
    }
  }
}
