import type { OpenAPIObject } from 'trpc-to-openapi';

/**
 * An example on every request body and 2xx JSON (or multipart) body of openapi.json, written from the
 * body's own schema: realistic values chosen by field name and format, always inside the schema's
 * bounds, patterns and enums (Redocly's `no-invalid-media-type-examples` checks each against its
 * schema). A body whose schema or procedure meta already has an example keeps it.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON Schema nodes of any shape, read by key
type Schema = Record<string, any>;

const UUIDS = ['3f2b8c1e-5d4a-4e7b-9c21-8a6f0d3e1b57', '9a7c4e12-0b3d-4f68-a5e9-2c1d7b8f6e30'];

/** Values by field name (the last property name on the way down), tried before the generic ones. */
const BY_NAME: Record<string, unknown[]> = {
  email: ['ada@example.com'],
  password: ['correct horse battery staple'],
  currentPassword: ['previous horse battery staple'],
  name: ['Northwind Consulting'],
  documentName: ['invoice-2026-014.pdf'],
  delimiter: [';'], // CsvMapping: a comma, a semicolon or a tab
  fileName: ['statement-2026-02.csv'],
  description: ['Consulting, February'],
  reference: ['INV-2026-014'],
  reason: ['Duplicate of INV-2026-013'],
  notes: ['Checked against the contract'],
  content: ['Paid by bank transfer on the 14th.'],
  comment: ['Please upload the signed invoice'],
  baseCurrency: ['USD'],
  currency: ['USD', 'EUR'],
  country: ['DE'],
  color: ['#1f6feb'],
  code: ['OPS', '4000'],
  taxCode: ['VAT19'],
  taxId: ['DE123456789'],
  url: ['https://hooks.example.com/finance'],
  externalId: ['ext-1042'],
  externalName: ['Northwind GmbH'],
  externalType: ['Vendor'],
  externalTaxCodeId: ['tax-19'],
  accountNumber: ['DE89370400440532013000'],
  accountNumberLast4: ['3000'],
  method: ['bank transfer'],
  externalRef: ['TX-88121'],
  counterpartyName: ['Northwind GmbH'],
  counterpartyAccount: ['DE89370400440532013000'],
  syncScheduleCron: ['0 * * * *'],
  cursor: ['eyJ2IjoxLCJrIjpbIjIwMjYtMDItMTQiLDQyXX0'],
  rate: ['1.0842'],
  fxRate: ['1.0842'],
  sha256: ['9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
  mimeType: ['application/pdf'],
  token_type: ['Bearer'],
  access_token: ['eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIzZjJiOGMxZSJ9.c2lnbmF0dXJl'],
  // an integration key (fes_live_) or an app key (fes_app_, CONTRACT §19): whichever the schema's pattern takes
  apiKey: [
    'fes_live_AbCd1234_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0',
    'fes_app_AbCd1234_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0xyz',
  ],
  prefix: ['fes_app_AbCd1234', 'fes_live_AbCd1234'],
  secret: ['whsec_' + 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw4gGQ7FTqsRk='],
  hash: ['9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
  prevHash: ['2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae'],
  period: ['2026-02'],
  search: ['consulting'],
  documentNumber: ['INV-2026-014'],
  providerType: ['MANUAL', 'QUICKBOOKS'],
  webhookSecret: ['a-long-shared-secret-of-the-connection'],
  baseUrl: ['https://erp.example.com/api'],
  eventId: ['evt-2026-02-14-0001'],
  csvMapping: ['{"dateColumn":"date","amountColumn":"amount","dateFormat":"YYYY-MM-DD","decimalSeparator":"."}'],
  // a CSV mapping's columns (CONTRACT §14: header names)
  dateColumn: ['date'],
  amountColumn: ['amount'],
  descriptionColumn: ['text'],
  counterpartyColumn: ['counterparty'],
  referenceColumn: ['reference'],
  externalIdColumn: ['transaction id'],
  nextCursor: ['eyJ2IjoxLCJrIjpbIjIwMjYtMDItMTQiLDQyXX0'],
  partyName: ['Northwind GmbH'],
  fromPartyName: ['Demo Company'],
  toPartyName: ['Northwind GmbH'],
  projectName: ['Operations'],
  tagName: ['travel'],
  iban: ['DE89370400440532013000'],
  keyPrefix: ['fes_app_AbCd1234', 'fes_live_AbCd1234'],
  externalVersion: ['3'],
  error: ['Unknown project 42'],
  detail: ['amount equals the document total'],
};

const BY_FORMAT: Record<string, unknown[]> = {
  uuid: UUIDS,
  date: ['2026-02-14'],
  'date-time': ['2026-02-14T09:30:00.000Z'],
  email: ['ada@example.com'],
  uri: ['https://hooks.example.com/finance'],
  binary: ['<file bytes>'],
};

/** What a value of each string format looks like: a candidate of another shape never stands for it. */
const FORMAT_SHAPES: Record<string, (value: string) => boolean> = {
  uuid: (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v),
  date: (v) => /^\d{4}-\d{2}-\d{2}$/.test(v),
  'date-time': (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v),
  email: (v) => /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(v),
  uri: (v) => URL.canParse(v),
};

const GENERIC_STRINGS = ['Text', 'ok', 'USD', 'DE', 'CUSTOM_ERP', 'a', '1', '1.5', 'entry.created', '2026-02', '2026-02-14'];

/** Integers by field name (within the schema's bounds, else the nearest bound). */
const INTEGER_BY_NAME: Record<string, number> = {
  amountCents: 250_000,
  unitAmountCents: 250_000,
  amountBaseCents: 250_000,
  openingBalanceCents: 1_000_000,
  closingBalanceCents: 1_250_000,
  statementBalanceCents: 1_250_000,
  totalCents: 250_000,
  taxCents: 39_916,
  netCents: 210_084,
  limit: 20,
  offset: 0,
  total: 1,
  priority: 10,
  dateToleranceDays: 5,
  graceSeconds: 3600,
  fileSize: 48_213,
  attempts: 1,
  lastStatusCode: 200,
  expires_in: 900,
};

/** Nullable fields whose example is null: what an entry, document or delivery holds until that thing happens. */
const NULL_BY_NAME = new Set([
  'statusReason',
  'reconciledAt',
  'reconciledBy',
  'approvedBy',
  'rejectionReason',
  'lastError',
  'disabledReason',
  'ignoredReason',
  'matchId',
  'revokedAt',
  'closedAt',
  'closedBy',
  'parentId',
  'firstBrokenEventId',
]);

const isNullable = (s: Schema) =>
  s.nullable === true ||
  (Array.isArray(s.type) && s.type.includes('null')) ||
  (Array.isArray(s.anyOf) && s.anyOf.some(isNullOnly)) ||
  (Array.isArray(s.oneOf) && s.oneOf.some(isNullOnly));

function isNullOnly(s: Schema): boolean {
  return s.type === 'null' || (s.enum && s.enum.length === 1 && s.enum[0] === null);
}

class Synthesizer {
  private readonly stack: string[] = [];
  constructor(private readonly components: Record<string, Schema>) {}

  value(schema: Schema | undefined, name = ''): unknown {
    if (!schema || typeof schema !== 'object') return 'value';
    if (schema.$ref) {
      const ref = String(schema.$ref).replace('#/components/schemas/', '');
      if (this.stack.includes(ref)) return undefined; // a cycle: leave the field out
      this.stack.push(ref);
      try {
        return this.value(this.components[ref], name);
      } finally {
        this.stack.pop();
      }
    }
    if (schema.example !== undefined) return schema.example;
    if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
    if (schema.const !== undefined) return schema.const;
    if (Array.isArray(schema.enum)) return schema.enum.find((v: unknown) => v !== null) ?? schema.enum[0];
    if (schema.default !== undefined && schema.default !== null && typeof schema.default !== 'object') return schema.default;
    for (const key of ['oneOf', 'anyOf'] as const) {
      // an object's own properties with oneOf branches that only say which of them are required
      if (Array.isArray(schema[key]) && schema.properties) return this.object(schema);
      if (Array.isArray(schema[key])) {
        const branch = schema[key].find((b: Schema) => !isNullOnly(b)) ?? schema[key][0];
        return this.value(branch, name);
      }
    }
    if (Array.isArray(schema.allOf)) {
      const parts = schema.allOf.map((part: Schema) => this.value(part, name));
      const objects = parts.every((part: unknown) => part !== null && typeof part === 'object' && !Array.isArray(part));
      return objects ? Object.assign({}, ...parts) : parts[0];
    }
    const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
    switch (type) {
      case 'object':
        return this.object(schema);
      case 'array':
        return this.array(schema, name);
      case 'string':
        return this.string(schema, name);
      case 'integer':
      case 'number':
        return this.number(schema, name, type);
      case 'boolean':
        return !/^(is)?(Archived|Reconciled|Inactive|voided|excludeFromSync|stopProcessing)$/i.test(name);
      case 'null':
        return null;
      default:
        if (schema.properties) return this.object(schema);
        return {};
    }
  }

  private object(schema: Schema): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    // with required-only oneOf branches, follow the first: leave out the properties its `not` forbids
    const branch = (schema.oneOf ?? schema.anyOf)?.[0] as Schema | undefined;
    const forbidden = new Set<string>(
      [branch?.not, ...((branch?.not?.anyOf as Schema[] | undefined) ?? [])].flatMap((s: Schema | undefined) => s?.required ?? []),
    );
    for (const [key, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
      if (forbidden.has(key)) continue;
      const v = NULL_BY_NAME.has(key) && isNullable(property) ? null : this.value(property, key);
      if (v !== undefined) out[key] = v;
    }
    // a `not` of required-only combinations (a CSV mapping's amount source): leave out the last optional
    // property of each combination the example would hold whole
    const required = new Set<string>((schema.required as string[] | undefined) ?? []);
    for (const combination of (schema.not?.anyOf as Schema[] | undefined) ?? []) {
      const keys = (combination.required as string[] | undefined) ?? [];
      if (keys.length > 0 && keys.every((key) => key in out)) delete out[keys.findLast((key) => !required.has(key))!];
    }
    const extra = schema.additionalProperties;
    if (Object.keys(out).length === 0 && extra && typeof extra === 'object' && !schema.propertyNames?.pattern) {
      const v = this.value(extra, 'value');
      if (v !== undefined) out.key = v;
    }
    return out;
  }

  private array(schema: Schema, name: string): unknown[] {
    const count = Math.max(schema.minItems ?? 0, Math.min(1, schema.maxItems ?? 1));
    const items: unknown[] = [];
    for (let i = 0; i < count; i++) {
      const v = this.value(schema.items, name.replace(/s$/, ''));
      if (v === undefined) break;
      items.push(i > 0 && typeof v === 'number' ? v + i : v);
    }
    return items;
  }

  private string(schema: Schema, name: string): string {
    const candidates = [...(BY_NAME[name] ?? []), ...(BY_FORMAT[schema.format] ?? []), ...GENERIC_STRINGS].filter(
      (c): c is string => typeof c === 'string',
    );
    const min = schema.minLength ?? 0;
    const max = schema.maxLength ?? Infinity;
    const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined;
    const shape = FORMAT_SHAPES[schema.format];
    // an event's eventId is a uuid, a webhook's is not: a value chosen by name must also have the field's format
    const fits = (c: string) => c.length >= min && c.length <= max && (!pattern || pattern.test(c)) && (!shape || shape(c));
    const found = candidates.find(fits);
    if (found !== undefined) return found;
    // nothing fits: a placeholder that Redocly's no-invalid-media-type-examples names (add a value to
    // BY_NAME), never an exception, since the server builds this document when it starts
    return 'x'.repeat(Math.max(min, 1));
  }

  private number(schema: Schema, name: string, type: string): number {
    const exclusiveMin = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : undefined;
    const exclusiveMax = typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum : undefined;
    const step = type === 'integer' ? 1 : 0.5;
    const low =
      exclusiveMin !== undefined
        ? exclusiveMin + step
        : schema.exclusiveMinimum === true
          ? schema.minimum + step
          : (schema.minimum ?? -Infinity);
    const high =
      exclusiveMax !== undefined
        ? exclusiveMax - step
        : schema.exclusiveMaximum === true
          ? schema.maximum - step
          : (schema.maximum ?? Infinity);
    const wanted =
      INTEGER_BY_NAME[name] ??
      (/Id$|^id$/.test(name)
        ? 42
        : /[Cc]ount$|^matched$|^queued$|^imported$|^updated$|^changed$/.test(name)
          ? 3
          : type === 'number'
            ? 0.5
            : 1);
    return Math.min(Math.max(wanted, low), high);
  }
}

type Media = { schema?: Schema; example?: unknown; examples?: unknown };
type Operation = { requestBody?: { content?: Record<string, Media> }; responses?: Record<string, { content?: Record<string, Media> }> };

const EXAMPLE_MEDIA = /^(application\/json|multipart\/form-data)/;

function mediaOf(operation: Operation): Media[] {
  const request = Object.entries(operation.requestBody?.content ?? {});
  const success = Object.entries(operation.responses ?? {})
    .filter(([status]) => /^2\d\d$/.test(status))
    .flatMap(([, response]) => Object.entries(response?.content ?? {}));
  return [...request, ...success].filter(([type]) => EXAMPLE_MEDIA.test(type)).map(([, media]) => media);
}

export function addExamples(doc: OpenAPIObject): void {
  const synthesizer = new Synthesizer((doc.components?.schemas ?? {}) as Record<string, Schema>);
  const items = [
    ...Object.values(doc.paths ?? {}),
    // OAS 3.1 `webhooks`, or `x-webhooks` in the 3.0 rendition
    ...['webhooks', 'x-webhooks'].flatMap((key) =>
      Object.values(((doc as unknown as Record<string, unknown>)[key] ?? {}) as Record<string, object>),
    ),
  ];
  for (const item of items) {
    for (const operation of Object.values(item as Record<string, Operation>)) {
      if (!operation || typeof operation !== 'object') continue;
      for (const media of mediaOf(operation)) {
        if (media.example !== undefined || media.examples !== undefined || !media.schema) continue;
        media.example = synthesizer.value(media.schema);
      }
    }
  }
}
