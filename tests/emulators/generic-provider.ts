import { startEmulatorServer, type EmulatorServer, type Reply, type SeenRequest } from './http-server.js';

/**
 * A custom accounting provider exactly as CONTRACT §9 describes the generic HTTP adapter's
 * counterpart: POST /entries → 201 {externalId, version}; PUT /entries/{externalId} → 200;
 * GET /entries/{externalId}; GET /entries?since=; GET /accounts; GET /parties; bearer auth when a
 * token is configured; Idempotency-Key honoured on creates. Every external change bumps `version`.
 */

export type ExternalRecord = {
  externalId: string;
  version: string;
  amountCents: number;
  entryDate: string;
  description: string | null;
  reference: string | null;
  voided: boolean;
  updatedAt: string;
  /** the last body the service sent for it */
  sent: Record<string, unknown>;
};

export type GenericProvider = EmulatorServer & {
  records: Map<string, ExternalRecord>;
  accounts: { externalId: string; code: string; name: string; accountType: string }[];
  parties: { externalId: string; name: string; externalType: string; country?: string }[];
  editExternally: (
    externalId: string,
    changes: Partial<Pick<ExternalRecord, 'amountCents' | 'entryDate' | 'description' | 'reference' | 'voided'>>,
  ) => ExternalRecord;
  setVersion: (externalId: string, version: string) => void;
  creates: () => SeenRequest[];
  updates: () => SeenRequest[];
};

const ENTRY_FIELDS = [
  'amountCents',
  'categoryExternalId',
  'currency',
  'description',
  'entryDate',
  'entryType',
  'fromParty',
  'localId',
  'reference',
  'toParty',
  'voided',
];

const view = (r: ExternalRecord) => {
  const { sent: _sent, ...rest } = r;
  return rest;
};

export async function startGenericProvider(opts: { token?: string } = {}): Promise<GenericProvider> {
  const records = new Map<string, ExternalRecord>();
  const idempotent = new Map<string, Reply>();
  let next = 1;
  const accounts = [
    { externalId: 'acc-100', code: '6100', name: 'Office supplies', accountType: 'EXPENSE' },
    { externalId: 'acc-200', code: '4000', name: 'Sales', accountType: 'REVENUE' },
  ];
  const parties = [
    { externalId: 'p-1', name: 'Globex', externalType: 'VENDOR', country: 'US' },
    { externalId: 'p-2', name: 'Northwind', externalType: 'CUSTOMER' },
  ];

  const bump = (r: ExternalRecord) => {
    r.version = String(Number(r.version) + 1);
    r.updatedAt = new Date().toISOString();
  };

  const invalidBody = (body: any): string | null => {
    if (!body || typeof body !== 'object') return 'body must be an object';
    const keys = Object.keys(body).sort();
    if (keys.join() !== ENTRY_FIELDS.join()) return `fields must be exactly ${ENTRY_FIELDS.join(', ')}`;
    if (!Number.isInteger(body.amountCents) || body.amountCents <= 0) return 'amountCents';
    return null;
  };

  const server = await startEmulatorServer((r) => {
    if (opts.token && r.headers.authorization !== `Bearer ${opts.token}`) return { status: 401, body: { error: 'unauthorized' } };
    const one = /^\/entries\/([^/]+)$/.exec(r.path);
    if (r.method === 'POST' && r.path === '/entries') {
      const key = r.headers['idempotency-key'];
      if (typeof key === 'string' && idempotent.has(key)) return idempotent.get(key)!;
      const problem = invalidBody(r.body);
      if (problem) return { status: 422, body: { error: problem } };
      const body = r.body as any;
      const record: ExternalRecord = {
        externalId: `ext-${next++}`,
        version: '1',
        amountCents: body.amountCents,
        entryDate: body.entryDate,
        description: body.description,
        reference: body.reference,
        voided: body.voided,
        updatedAt: new Date().toISOString(),
        sent: body,
      };
      records.set(record.externalId, record);
      const reply = { status: 201, body: { externalId: record.externalId, version: record.version } };
      if (typeof key === 'string') idempotent.set(key, reply);
      return reply;
    }
    if (r.method === 'PUT' && one) {
      const record = records.get(decodeURIComponent(one[1]));
      if (!record) return { status: 404, body: { error: 'not found' } };
      const problem = invalidBody(r.body);
      if (problem) return { status: 422, body: { error: problem } };
      const body = r.body as any;
      Object.assign(record, {
        amountCents: body.amountCents,
        entryDate: body.entryDate,
        description: body.description,
        reference: body.reference,
        voided: body.voided,
        sent: body,
      });
      bump(record);
      return { status: 200, body: { externalId: record.externalId, version: record.version } };
    }
    if (r.method === 'GET' && one) {
      const record = records.get(decodeURIComponent(one[1]));
      return record ? { status: 200, body: view(record) } : { status: 404, body: { error: 'not found' } };
    }
    if (r.method === 'GET' && r.path === '/entries') {
      const since = r.query.get('since');
      const from = since ? Date.parse(since) : -Infinity;
      return { status: 200, body: { entries: [...records.values()].filter((x) => Date.parse(x.updatedAt) >= from).map(view) } };
    }
    if (r.method === 'GET' && r.path === '/accounts') return { status: 200, body: { accounts } };
    if (r.method === 'GET' && r.path === '/parties') return { status: 200, body: { parties } };
    return { status: 404, body: { error: 'no such route' } };
  });

  return {
    ...server,
    records,
    accounts,
    parties,
    editExternally: (externalId, changes) => {
      const record = records.get(externalId)!;
      Object.assign(record, changes);
      bump(record);
      return record;
    },
    setVersion: (externalId, version) => {
      records.get(externalId)!.version = version;
    },
    creates: () => server.requests.filter((r) => r.method === 'POST' && r.path === '/entries'),
    updates: () => server.requests.filter((r) => r.method === 'PUT'),
  };
}
