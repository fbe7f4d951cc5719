import { randomBytes } from 'node:crypto';
import { startEmulatorServer, type EmulatorServer, type Reply, type SeenRequest } from './http-server.js';

/**
 * A local stand-in for the QuickBooks Online Accounting API v3, faithful to the subset the
 * service uses: Purchase and Deposit (create, full update with SyncToken, delete, read), change
 * data capture, `select * from Account|Vendor|Customer` queries with STARTPOSITION/MAXRESULTS,
 * `requestid` idempotency, the OAuth2 token endpoint (refresh_token grant, rotating refresh
 * tokens, HTTP Basic client authentication), and QuickBooks' fault bodies: ValidationFault 5010
 * (stale object), 6210 (closed period), 610 (object not found), 2020/2500 (bad input),
 * AUTHENTICATION 3200 (lower-case `fault`, as the real authentication layer sends it), 429
 * ThrottleExceeded. Faults (5xx, 429, delays, dropped connections) can be injected per request.
 */

type Entity = 'Purchase' | 'Deposit';
type Txn = Record<string, any> & {
  Id: string;
  SyncToken: string;
  deleted?: boolean;
  MetaData: { CreateTime: string; LastUpdatedTime: string };
};

export type QbEmulator = EmulatorServer & {
  tokenUrl: string;
  realmId: string;
  clientId: string;
  clientSecret: string;
  purchases: Map<string, Txn>;
  deposits: Map<string, Txn>;
  accounts: Record<string, any>[];
  vendors: Record<string, any>[];
  customers: Record<string, any>[];
  /** fresh tokens; `expiresInSeconds` sets what the credentials say (the emulator honours its own expiry) */
  credentials: (opts?: { expiresInSeconds?: number; extra?: Record<string, unknown> }) => Record<string, unknown>;
  expireAccessTokens: () => void;
  closeBooksThrough: (date: string | null) => void;
  editExternally: (
    entity: Entity,
    id: string,
    changes: { TotalAmt?: number; TxnDate?: string; PrivateNote?: string; DocNumber?: string },
  ) => Txn;
  deleteExternally: (entity: Entity, id: string) => void;
  setSyncToken: (entity: Entity, id: string, token: string) => void;
  /** requests to an API path (e.g. '/purchase'), POSTs only unless `method` is given */
  calls: (suffix: string, method?: string) => SeenRequest[];
  created: () => number;
  tokenRefreshes: () => number;
};

const now = () => new Date().toISOString();
/** The most objects QuickBooks puts in one change data capture answer. */
const CDC_MAX_OBJECTS = 1000;
const fault = (status: number, code: string, message: string, detail: string, type = 'ValidationFault'): Reply => ({
  status,
  body: { Fault: { Error: [{ Message: message, Detail: detail, code }], type }, time: now() },
});
const authFault = (detail: string): Reply => ({
  status: 401,
  body: {
    fault: {
      error: [{ message: 'message=AuthenticationFailed; errorCode=003200; statusCode=401', detail, code: '3200' }],
      type: 'AUTHENTICATION',
    },
    time: now(),
  },
});

export const QB_THROTTLED = {
  status: 429,
  headers: { 'Retry-After': '60' },
  body: {
    Fault: {
      Error: [
        { Message: 'message=ThrottleExceeded; errorCode=003001; statusCode=429', Detail: 'The request limit was reached.', code: '3001' },
      ],
      type: 'SERVICE',
    },
  },
};
export const QB_UNAVAILABLE = {
  status: 503,
  body: { Fault: { Error: [{ Message: 'Service Unavailable', code: '0' }], type: 'SystemFault' } },
};

export async function startQuickBooksEmulator(): Promise<QbEmulator> {
  const realmId = `9130${randomBytes(4).readUInt32BE() % 1_000_000_000}`;
  const clientId = `client-${randomBytes(4).toString('hex')}`;
  const clientSecret = randomBytes(12).toString('hex');
  const accessTokens = new Map<string, number>();
  const refreshTokens = new Set<string>();
  const purchases = new Map<string, Txn>();
  const deposits = new Map<string, Txn>();
  const idempotent = new Map<string, Reply>();
  let nextTxnId = 100;
  let refreshes = 0;
  let closedThrough: string | null = null;
  const accounts: Record<string, any>[] = [
    { Id: '35', Name: 'Checking', AccountType: 'Bank', Classification: 'Asset', AcctNum: '1000', Active: true },
    { Id: '4', Name: 'Sales', AccountType: 'Income', Classification: 'Revenue', AcctNum: '4000', Active: true },
    { Id: '7', Name: 'Office Expenses', AccountType: 'Expense', Classification: 'Expense', AcctNum: '6100', Active: true },
    { Id: '8', Name: 'Travel', AccountType: 'Expense', Classification: 'Expense', Active: true },
    { Id: '33', Name: 'Accounts Payable', AccountType: 'Accounts Payable', Classification: 'Liability', AcctNum: '2000', Active: true },
  ];
  const vendors: Record<string, any>[] = [
    { Id: '56', DisplayName: 'Globex', Active: true, BillAddr: { Country: 'US' } },
    { Id: '57', DisplayName: 'Hooli', Active: true },
  ];
  const customers: Record<string, any>[] = [{ Id: '58', DisplayName: 'Acme Ltd', Active: true, BillAddr: { Country: 'GB' } }];

  const issue = (expiresInSeconds = 3600) => {
    const accessToken = `at-${randomBytes(12).toString('hex')}`;
    const refreshToken = `rt-${randomBytes(12).toString('hex')}`;
    accessTokens.set(accessToken, Date.now() + expiresInSeconds * 1000);
    refreshTokens.add(refreshToken);
    return { accessToken, refreshToken, expiresInSeconds };
  };

  const store = (entity: Entity) => (entity === 'Purchase' ? purchases : deposits);
  const accountExists = (id: unknown) => accounts.some((a) => a.Id === id);
  const isClosed = (date: unknown) => closedThrough !== null && typeof date === 'string' && date <= closedThrough;
  const visible = (t: Txn) => {
    const { deleted: _deleted, ...rest } = t;
    return rest;
  };

  function validate(entity: Entity, body: any): Reply | null {
    if (!body || typeof body !== 'object')
      return fault(400, '2020', 'Required param missing, need to supply the required value for the API', 'body');
    if (typeof body.TxnDate !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(body.TxnDate)) {
      return fault(
        400,
        '2020',
        'Required param missing, need to supply the required value for the API',
        'Required parameter TxnDate is missing',
      );
    }
    if (!Array.isArray(body.Line) || body.Line.length === 0) {
      return fault(
        400,
        '2020',
        'Required param missing, need to supply the required value for the API',
        'Required parameter Line is missing',
      );
    }
    if (entity === 'Purchase') {
      if (!['Cash', 'Check', 'CreditCard'].includes(body.PaymentType)) return fault(400, '2020', 'Required param missing', 'PaymentType');
      if (!accountExists(body.AccountRef?.value))
        return fault(400, '2500', 'Invalid Reference Id', `Invalid Reference Id : Accounts element id ${body.AccountRef?.value} not found`);
      for (const line of body.Line) {
        if (line.DetailType !== 'AccountBasedExpenseLineDetail' || typeof line.Amount !== 'number')
          return fault(400, '2020', 'Required param missing', 'Line');
        if (!accountExists(line.AccountBasedExpenseLineDetail?.AccountRef?.value))
          return fault(400, '2500', 'Invalid Reference Id', 'Line account not found');
      }
      if (body.EntityRef && !vendors.some((v) => v.Id === body.EntityRef.value))
        return fault(400, '2500', 'Invalid Reference Id', 'Vendor not found');
      if (typeof body.DocNumber === 'string' && body.DocNumber.length > 21)
        return fault(400, '6000', 'A business validation error has occurred', 'DocNumber too long');
    } else {
      if (!accountExists(body.DepositToAccountRef?.value))
        return fault(400, '2500', 'Invalid Reference Id', 'DepositToAccountRef not found');
      for (const line of body.Line) {
        if (line.DetailType !== 'DepositLineDetail' || typeof line.Amount !== 'number')
          return fault(400, '2020', 'Required param missing', 'Line');
        if (!accountExists(line.DepositLineDetail?.AccountRef?.value))
          return fault(400, '2500', 'Invalid Reference Id', 'Line account not found');
        const customer = line.DepositLineDetail?.Entity?.value;
        if (customer && !customers.some((c) => c.Id === customer)) return fault(400, '2500', 'Invalid Reference Id', 'Customer not found');
      }
    }
    if (isClosed(body.TxnDate)) {
      return fault(
        400,
        '6210',
        'Account Period Closed, Cannot Update Through Services API',
        `The account period has closed (books closed through ${closedThrough})`,
      );
    }
    return null;
  }

  const fields = (body: any) => {
    const { Id: _id, SyncToken: _st, sparse: _sp, MetaData: _md, TotalAmt: _ta, ...rest } = body;
    return { ...rest, TotalAmt: Math.round(body.Line.reduce((s: number, l: any) => s + l.Amount, 0) * 100) / 100 };
  };

  function write(entity: Entity, r: SeenRequest): Reply {
    const body: any = r.body;
    const objects = store(entity);
    if (r.query.get('operation') === 'delete') {
      const existing = objects.get(String(body?.Id));
      if (!existing || existing.deleted)
        return fault(400, '610', 'Object Not Found', `Object Not Found : Something you're trying to use has been made inactive`);
      if (String(body.SyncToken) !== existing.SyncToken)
        return fault(400, '5010', 'Stale Object Error', 'Stale Object Error : You and another user were working on the same thing.');
      if (isClosed(existing.TxnDate)) return fault(400, '6210', 'Account Period Closed, Cannot Update Through Services API', 'closed');
      existing.deleted = true;
      existing.MetaData.LastUpdatedTime = now();
      return { status: 200, body: { [entity]: { domain: 'QBO', status: 'Deleted', Id: existing.Id }, time: now() } };
    }
    const invalid = validate(entity, body);
    if (invalid) return invalid;
    if (body.Id !== undefined) {
      const existing = objects.get(String(body.Id));
      if (!existing || existing.deleted) return fault(400, '610', 'Object Not Found', 'Object Not Found');
      if (String(body.SyncToken) !== existing.SyncToken)
        return fault(400, '5010', 'Stale Object Error', 'Stale Object Error : You and another user were working on the same thing.');
      if (isClosed(existing.TxnDate)) return fault(400, '6210', 'Account Period Closed, Cannot Update Through Services API', 'closed');
      const updated: Txn = {
        ...(body.sparse ? existing : {}),
        ...fields(body),
        Id: existing.Id,
        SyncToken: String(Number(existing.SyncToken) + 1),
        MetaData: { CreateTime: existing.MetaData.CreateTime, LastUpdatedTime: now() },
      };
      objects.set(existing.Id, updated);
      return { status: 200, body: { [entity]: visible(updated), time: now() } };
    }
    const id = String(nextTxnId++);
    const created: Txn = {
      ...fields(body),
      Id: id,
      SyncToken: '0',
      domain: 'QBO',
      MetaData: { CreateTime: now(), LastUpdatedTime: now() },
    };
    objects.set(id, created);
    return { status: 200, body: { [entity]: visible(created), time: now() } };
  }

  function read(entity: Entity, id: string): Reply {
    const t = store(entity).get(id);
    if (!t || t.deleted)
      return fault(400, '610', 'Object Not Found', "Object Not Found : Something you're trying to use has been made inactive or deleted");
    return { status: 200, body: { [entity]: visible(t), time: now() } };
  }

  /** Like QuickBooks: at most CDC_MAX_OBJECTS changed objects per answer (the earliest changed), no paging parameters. */
  function cdc(r: SeenRequest): Reply {
    const since = r.query.get('changedSince');
    const entities = (r.query.get('entities') ?? '').split(',').filter(Boolean);
    if (!since || !Number.isFinite(Date.parse(since))) return fault(400, '2020', 'Required param missing', 'changedSince');
    const from = Date.parse(since);
    const changed = entities
      .flatMap((name) => {
        const objects = name === 'Purchase' ? purchases : name === 'Deposit' ? deposits : new Map<string, Txn>();
        return [...objects.values()].filter((t) => Date.parse(t.MetaData.LastUpdatedTime) >= from).map((t) => ({ name, t }));
      })
      .sort((a, b) => Date.parse(a.t.MetaData.LastUpdatedTime) - Date.parse(b.t.MetaData.LastUpdatedTime))
      .slice(0, CDC_MAX_OBJECTS);
    const groups = entities.map((name) => {
      const mine = changed
        .filter((c) => c.name === name)
        .map(({ t }) =>
          t.deleted
            ? { domain: 'QBO', status: 'Deleted', Id: t.Id, MetaData: { LastUpdatedTime: t.MetaData.LastUpdatedTime } }
            : visible(t),
        );
      return mine.length ? { [name]: mine, startPosition: 1, maxResults: mine.length } : { startPosition: 1, maxResults: 0 };
    });
    return { status: 200, body: { CDCResponse: [{ QueryResponse: groups }], time: now() } };
  }

  function query(r: SeenRequest): Reply {
    const q = r.query.get('query') ?? '';
    const m = /^select \* from (\w+)(?:\s+where\s+.+?)?(?:\s+startposition\s+(\d+))?(?:\s+maxresults\s+(\d+))?\s*$/i.exec(q.trim());
    if (!m) return fault(400, '4000', 'Error parsing query', `QueryParserError: ${q}`);
    const source: Record<string, Record<string, any>[]> = { Account: accounts, Vendor: vendors, Customer: customers };
    const rows = source[m[1]];
    if (!rows) return fault(400, '4001', 'Invalid query', `unsupported entity ${m[1]}`);
    const start = Number(m[2] ?? 1);
    const max = Math.min(Number(m[3] ?? 100), 1000);
    const page = rows.slice(start - 1, start - 1 + max);
    return {
      status: 200,
      body: { QueryResponse: page.length ? { [m[1]]: page, startPosition: start, maxResults: page.length } : {}, time: now() },
    };
  }

  function token(r: SeenRequest): Reply {
    const basic = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
    if (r.headers.authorization !== basic) return { status: 401, body: { error: 'invalid_client' } };
    const form = r.body as Record<string, string> | undefined;
    if (form?.grant_type !== 'refresh_token' || !form.refresh_token || !refreshTokens.has(form.refresh_token)) {
      return { status: 400, body: { error: 'invalid_grant' } };
    }
    refreshTokens.delete(form.refresh_token);
    refreshes++;
    const t = issue();
    return {
      status: 200,
      body: {
        token_type: 'bearer',
        access_token: t.accessToken,
        refresh_token: t.refreshToken,
        expires_in: 3600,
        x_refresh_token_expires_in: 8726400,
      },
    };
  }

  const server = await startEmulatorServer((r) => {
    if (r.method === 'POST' && r.path === '/oauth2/v1/tokens/bearer') return token(r);
    const m = /^\/v3\/company\/([^/]+)\/(purchase|deposit|query|cdc)(?:\/([^/]+))?$/.exec(r.path);
    if (!m) return { status: 404, text: 'Not Found' };
    const bearer = /^Bearer (.+)$/.exec(r.headers.authorization ?? '')?.[1];
    const expiry = bearer ? accessTokens.get(bearer) : undefined;
    if (!bearer || expiry === undefined) return authFault('Token invalid');
    if (expiry <= Date.now()) return authFault('Token expired: ' + bearer.slice(0, 8));
    if (m[1] !== realmId)
      return fault(403, '3100', 'message=ApplicationAuthorizationFailed; errorCode=003100; statusCode=403', 'realm', 'AUTHORIZATION');
    const entity: Entity | null = m[2] === 'purchase' ? 'Purchase' : m[2] === 'deposit' ? 'Deposit' : null;
    if (r.method === 'GET' && m[2] === 'query') return query(r);
    if (r.method === 'GET' && m[2] === 'cdc') return cdc(r);
    if (entity && r.method === 'GET' && m[3]) return read(entity, m[3]);
    if (entity && r.method === 'POST' && !m[3]) {
      const requestId = r.query.get('requestid');
      const key = requestId ? `${r.path}:${requestId}` : null;
      if (key && idempotent.has(key)) return idempotent.get(key)!;
      const reply = write(entity, r);
      if (key && reply.status === 200) idempotent.set(key, reply);
      return reply;
    }
    return { status: 405, text: 'Method Not Allowed' };
  });

  const apiCalls = (suffix: string, method = 'POST') =>
    server.requests.filter((r) => r.method === method && r.path.startsWith(`/v3/company/${realmId}`) && r.path.endsWith(suffix));

  return {
    ...server,
    tokenUrl: `${server.baseUrl}/oauth2/v1/tokens/bearer`,
    realmId,
    clientId,
    clientSecret,
    purchases,
    deposits,
    accounts,
    vendors,
    customers,
    credentials: (opts = {}) => {
      const t = issue(opts.expiresInSeconds ?? 3600);
      return {
        realmId,
        clientId,
        clientSecret,
        accessToken: t.accessToken,
        refreshToken: t.refreshToken,
        tokenExpiresAt: new Date(Date.now() + t.expiresInSeconds * 1000).toISOString(),
        ...opts.extra,
      };
    },
    expireAccessTokens: () => {
      for (const key of accessTokens.keys()) accessTokens.set(key, 0);
    },
    closeBooksThrough: (date) => {
      closedThrough = date;
    },
    editExternally: (entity, id, changes) => {
      const t = store(entity).get(id)!;
      if (changes.TotalAmt !== undefined) {
        t.TotalAmt = changes.TotalAmt;
        t.Line[0].Amount = changes.TotalAmt;
      }
      if (changes.TxnDate !== undefined) t.TxnDate = changes.TxnDate;
      if (changes.PrivateNote !== undefined) t.PrivateNote = changes.PrivateNote;
      if (changes.DocNumber !== undefined) t.DocNumber = changes.DocNumber;
      t.SyncToken = String(Number(t.SyncToken) + 1);
      t.MetaData.LastUpdatedTime = now();
      return t;
    },
    deleteExternally: (entity, id) => {
      const t = store(entity).get(id)!;
      t.deleted = true;
      t.MetaData.LastUpdatedTime = now();
    },
    setSyncToken: (entity, id, tokenValue) => {
      store(entity).get(id)!.SyncToken = tokenValue;
    },
    calls: apiCalls,
    created: () => purchases.size + deposits.size,
    tokenRefreshes: () => refreshes,
  };
}
