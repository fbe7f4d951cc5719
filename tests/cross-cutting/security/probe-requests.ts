import { randomUUID } from 'node:crypto';
import type { JsonSchema, Operation } from './operations.js';

/**
 * A valid-looking request for an operation, built from its OpenAPI description: path parameters,
 * required query parameters and required body fields get values, and every field that names an
 * object (workspaceId, entryId, connectionId, partyId, …) gets the id of a REAL object of the
 * tenant under attack. An operation whose path names an object kind unknown here makes the
 * builder throw, so a new resource cannot slip through unprobed.
 */

export type ForeignIds = {
  /** an app's API key (CONTRACT §19) */
  apiKeyId: string;
  workspaceId: number;
  projectId: number;
  entryId: number;
  entrySourceId: number;
  partyId: number;
  tagId: number;
  userId: string;
  documentId: string;
  periodId: string;
  connectionId: string;
  categoryId: string;
  partyMappingId: string;
  taxMappingId: string;
  reviewId: string;
  syncId: string;
  integrationId: string;
  webhookEndpointId: string;
  webhookDeliveryId: string;
  /** bank account (uuid), bank line (bigint), reconciliation match (uuid): CONTRACT §14 */
  bankAccountId: string;
  bankLineId: number;
  bankMatchId: string;
  ruleId: string;
  fxRateId: number;
  /** an inbox document (CONTRACT §21) */
  inboxDocumentId: string;
  /** a journal transaction of the books (CONTRACT §23) */
  journalTransactionId: number;
  /** a recurring entry and a budget (CONTRACT §25) */
  recurringEntryId: string;
  budgetId: string;
};

export type ProbeRequest = {
  method: string;
  /** concrete path with the ids filled in */
  url: string;
  query: Record<string, string | number | boolean>;
  body?: Record<string, unknown>;
  multipart?: Record<string, unknown>;
  /** the merged input (path + query + body) as the tRPC transport takes it */
  input: Record<string, unknown>;
  /** whether any value names an object of the tenant under attack */
  referencesTenant: boolean;
};

/** `{id}` by the collection it follows. */
const ID_BY_COLLECTION: Record<string, keyof ForeignIds> = {
  users: 'userId',
  workspaces: 'workspaceId',
  projects: 'projectId',
  parties: 'partyId',
  tags: 'tagId',
  entries: 'entryId',
  periods: 'periodId',
  integrations: 'integrationId',
  connections: 'connectionId',
  categories: 'categoryId',
  reviews: 'reviewId',
  syncs: 'syncId',
  'mappings/parties': 'partyMappingId',
  'mappings/taxes': 'taxMappingId',
  'webhook-endpoints': 'webhookEndpointId',
  'bank-accounts': 'bankAccountId',
  'bank-lines': 'bankLineId',
  'reconciliation/matches': 'bankMatchId',
  rules: 'ruleId',
  'fx-rates': 'fxRateId',
  'api-keys': 'apiKeyId',
  'inbox/documents': 'inboxDocumentId',
  documents: 'documentId',
  'ledger/journal': 'journalTransactionId',
  'recurring-entries': 'recurringEntryId',
  budgets: 'budgetId',
};

/** Fields (path, query or body) that name an object, wherever they appear. */
const ID_BY_FIELD: Record<string, keyof ForeignIds> = {
  workspaceId: 'workspaceId',
  projectId: 'projectId',
  entryId: 'entryId',
  entrySourceId: 'entrySourceId',
  partyId: 'partyId',
  fromPartyId: 'partyId',
  toPartyId: 'partyId',
  userId: 'userId',
  reviewerId: 'userId',
  documentId: 'documentId',
  connectionId: 'connectionId',
  categoryId: 'categoryId',
  parentId: 'categoryId',
  syncId: 'syncId',
  deliveryId: 'webhookDeliveryId',
  bankAccountId: 'bankAccountId',
  budgetId: 'budgetId',
};
const IDS_BY_FIELD: Record<string, keyof ForeignIds> = {
  projectIds: 'projectId',
  entryIds: 'entryId',
  tagIds: 'tagId',
  reviewIds: 'reviewId',
  syncIds: 'syncId',
  lineIds: 'bankLineId',
};

/** Strings whose schema says only "string" but whose rules live in the service. */
const STRING_BY_FIELD: Record<string, string> = {
  providerType: 'MANUAL',
  baseCurrency: 'USD',
  currency: 'USD',
  country: 'US',
  color: '#336699',
  password: 'long-enough-password-1',
  reason: 'security probe',
  notes: 'security probe',
  url: 'http://127.0.0.1:9/probe',
  rate: '1.1',
  rrule: 'FREQ=MONTHLY;BYMONTHDAY=1',
};

function idForPath(path: string, name: string, ids: ForeignIds): string | number {
  if (name !== 'id') {
    const key = ID_BY_FIELD[name];
    if (!key) throw new Error(`${path}: no tenant object known for path parameter {${name}}`);
    return ids[key];
  }
  const before = path.slice(0, path.indexOf('/{id}'));
  const match = Object.keys(ID_BY_COLLECTION)
    .filter((c) => before.endsWith(`/${c}`))
    .sort((a, b) => b.length - a.length)[0];
  if (!match) throw new Error(`${path}: no tenant object known for {id} after ${before}`);
  return ids[ID_BY_COLLECTION[match]];
}

type Built = { value: unknown; references: boolean };

function valueFor(name: string, schema: JsonSchema, ids: ForeignIds): Built {
  if (ID_BY_FIELD[name]) return { value: ids[ID_BY_FIELD[name]], references: true };
  if (IDS_BY_FIELD[name]) return { value: [ids[IDS_BY_FIELD[name]]], references: true };
  return { value: sample(name, schema, ids), references: false };
}

function sample(name: string, schema: JsonSchema, ids: ForeignIds): unknown {
  if (schema.anyOf || schema.oneOf) {
    const options = (schema.anyOf ?? schema.oneOf) as JsonSchema[];
    return sample(name, options.find((o) => o.type !== 'null') ?? options[0], ids);
  }
  if (schema.enum) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  switch (schema.type) {
    case 'object':
      return objectFor(schema, ids).value;
    case 'array': {
      const n = Math.max(1, schema.minItems ?? 0);
      return Array.from({ length: n }, () => sample(name, schema.items ?? {}, ids));
    }
    case 'integer':
    case 'number':
      return Math.max(1, Math.ceil(schema.minimum ?? 0), name === 'year' ? 2026 : 1, name.endsWith('Cents') ? 100 : 1);
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      if (schema.format === 'date') return '2026-03-15';
      if (schema.format === 'date-time') return '2026-03-15T00:00:00.000Z';
      if (schema.format === 'email') return `probe-${randomUUID().slice(0, 8)}@example.test`;
      if (schema.format === 'uuid') return randomUUID();
      if (STRING_BY_FIELD[name]) return STRING_BY_FIELD[name];
      return `probe-${name}`.padEnd(schema.minLength ?? 1, 'x');
  }
}

/** An object schema that is not a union of object shapes (those are sampled one option at a time). */
const plainObject = (schema: JsonSchema | undefined): boolean => schema?.type === 'object' && !schema.oneOf && !schema.anyOf;

/** The required fields and every field that names an object, filled in. */
function objectFor(schema: JsonSchema, ids: ForeignIds): Built {
  const out: Record<string, unknown> = {};
  let references = false;
  const required = new Set<string>(schema.required ?? []);
  for (const [name, prop] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
    const namesObject = !!(ID_BY_FIELD[name] || IDS_BY_FIELD[name]);
    if (!required.has(name) && !namesObject) continue;
    if (plainObject(prop) || (prop.type === 'array' && plainObject(prop.items))) {
      const inner = prop.type === 'object' ? objectFor(prop, ids) : objectFor(prop.items, ids);
      out[name] = prop.type === 'object' ? inner.value : [inner.value];
      references ||= inner.references;
      continue;
    }
    const built = valueFor(name, prop, ids);
    out[name] = built.value;
    references ||= built.references;
  }
  return { value: out, references };
}

/** A small file for multipart bodies (plain text passes the type sniffing). */
const PROBE_FILE = () => new Blob(['security probe\n'], { type: 'text/plain' });

/** A one-line CSV statement (USD, the victim's bank account currency) and its mapping. */
export const PROBE_STATEMENT_CSV = 'Date,Amount,Text\n2026-03-20,1.00,security probe\n';
export const PROBE_CSV_MAPPING = {
  dateColumn: 'Date',
  amountColumn: 'Amount',
  descriptionColumn: 'Text',
  dateFormat: 'YYYY-MM-DD',
  decimalSeparator: '.',
};

/**
 * Multipart parts by operation, beyond the required ones: each makes a request that succeeds for
 * the owner, so that a probe stopped by anything but the access check would show as a 2xx.
 */
const MULTIPART_BY_OPERATION: Record<string, Record<string, unknown>> = {
  importBankStatement: {
    file: () => new Blob([PROBE_STATEMENT_CSV], { type: 'text/csv' }),
    format: 'CSV',
    csvMapping: JSON.stringify(PROBE_CSV_MAPPING),
  },
};

export function buildProbeRequest(op: Operation, ids: ForeignIds): ProbeRequest {
  let url = op.path;
  let referencesTenant = false;
  const input: Record<string, unknown> = {};
  const query: ProbeRequest['query'] = {};
  for (const p of op.doc.parameters ?? []) {
    if (p.in === 'path') {
      const id = idForPath(op.path, p.name, ids);
      url = url.replace(`{${p.name}}`, encodeURIComponent(String(id)));
      input[p.name] = id;
      referencesTenant = true;
    } else if (p.in === 'query' && (p.required || ID_BY_FIELD[p.name] === 'workspaceId' || p.name === 'connectionId')) {
      const built = valueFor(p.name, p.schema, ids);
      query[p.name] = built.value as string | number | boolean;
      input[p.name] = built.value;
      referencesTenant ||= built.references;
    }
  }
  const content = op.doc.requestBody?.content ?? {};
  let body: Record<string, unknown> | undefined;
  let multipart: Record<string, unknown> | undefined;
  if (content['application/json']) {
    // a union body (EntryStatusChange) is probed with its first variant
    const schema = content['application/json'].schema;
    const built = objectFor(schema.oneOf ? schema.oneOf[0] : schema, ids);
    body = built.value as Record<string, unknown>;
    Object.assign(input, body);
    referencesTenant ||= built.references;
  } else if (content['multipart/form-data']) {
    const schema = content['multipart/form-data'].schema;
    multipart = {};
    for (const name of schema.required ?? []) {
      const prop = schema.properties[name] as JsonSchema;
      // a part naming an object (the inbox upload's workspaceId) names the attacked tenant's
      const built = prop.format === 'binary' ? { value: PROBE_FILE, references: false } : valueFor(name, prop, ids);
      multipart[name] = built.value;
      referencesTenant ||= built.references;
    }
    Object.assign(multipart, MULTIPART_BY_OPERATION[op.operationId]);
  }
  return { method: op.method, url, query, body, multipart, input, referencesTenant };
}

/** Multipart parts as FormData (a fresh one per request: a body can be sent once). */
export function formDataOf(parts: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(parts)) {
    if (typeof value === 'function') form.append(name, (value as () => Blob)(), 'probe.txt');
    else form.append(name, String(value));
  }
  return form;
}
