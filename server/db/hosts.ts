import pg from 'pg';

/** One `host:port` of a DATABASE_URL. */
export type HostPort = { host: string; port: number };

/**
 * A DATABASE_URL as the service reads it (CONTRACT §22): `postgres://u:p@h1:5432,h2:5432/db?…`
 * may name several hosts, as libpq's URLs do (`pg` itself reads only one). `url` is the same URL
 * with the first host alone and without `target_session_attrs`, for the parsers that read one
 * host (Sequelize, `pg`): user, password, database and TLS (`sslmode`, …) come from it.
 */
export type DatabaseTarget = {
  url: string;
  hosts: HostPort[];
  /** `target_session_attrs=read-write` (or `primary`): only a host that takes writes will do. */
  readWrite: boolean;
};

const SESSION_ATTRS = new Set(['any', 'read-write', 'primary']);

/** Parses a DATABASE_URL (one or several hosts); throws a readable Error when it is not one. */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  const m = /^(postgres(?:ql)?:\/\/)([^/?#]*@)?([^/?#@]*)([/?#].*)?$/s.exec(url);
  if (!m) throw new Error('must be a postgres:// URL');
  const [, scheme, auth = '', authority = '', rest = ''] = m;
  const hosts = authority.split(',').map((part) => {
    const hp = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(part);
    if (!hp) throw new Error(`bad host "${part}"`);
    const port = hp[2] ? Number(hp[2]) : 5432;
    if (port < 1 || port > 65535) throw new Error(`bad port in "${part}"`);
    return { host: hp[1]!.replace(/^\[|\]$/g, ''), port };
  });
  const q = rest.indexOf('?');
  const params = new URLSearchParams(q >= 0 ? rest.slice(q + 1).replace(/#.*$/, '') : '');
  const attrs = params.get('target_session_attrs') ?? 'any';
  if (!SESSION_ATTRS.has(attrs)) throw new Error(`target_session_attrs must be one of ${[...SESSION_ATTRS].join(', ')}`);
  params.delete('target_session_attrs');
  const path = q >= 0 ? rest.slice(0, q) : rest.replace(/#.*$/, '');
  const query = params.toString();
  const first = hosts[0]!;
  const hostText = first.host.includes(':') ? `[${first.host}]` : first.host;
  const single = `${scheme}${auth}${hostText}:${first.port}${path}${query ? `?${query}` : ''}`;
  new URL(single); // what remains must be an ordinary URL
  return { url: single, hosts, readWrite: attrs !== 'any' };
}

/** A pg config that may carry several hosts: PrimaryClient connects to the right one. */
export type MultiHostConfig = pg.ClientConfig & { hosts?: HostPort[]; readWrite?: boolean };

/** The pg config of a DATABASE_URL (one or several hosts), for PrimaryClient or a pg.Pool of them. */
export function pgConnectionOf(url: string): {
  connectionString: string;
  hosts?: HostPort[];
  readWrite?: boolean;
  Client: typeof PrimaryClient;
} {
  const target = parseDatabaseUrl(url);
  return { connectionString: target.url, ...multiHostPart(target), Client: PrimaryClient };
}

/** The `hosts` a config carries: only when there is a choice to make (one host is plain pg). */
export function multiHostPart(target: DatabaseTarget): Pick<MultiHostConfig, 'hosts' | 'readWrite'> {
  return target.hosts.length > 1 || target.readWrite ? { hosts: target.hosts, readWrite: target.readWrite } : {};
}

/** How long a probe of one host may take to connect before it counts as down. */
export const PROBE_TIMEOUT_MS = 2_000;

/** The last host found to fit, per host list: new connections go there until one fails. */
const lastFound = new Map<string, HostPort>();
const listKey = (hosts: HostPort[]) => hosts.map((h) => `${h.host}:${h.port}`).join(',');

/** Thrown (as a connection error, `code` ENOPRIMARY) when no listed host takes writes: a 503, not a 500. */
export class NoPrimaryError extends Error {
  readonly code = 'ENOPRIMARY';
  constructor(hosts: HostPort[], readWrite: boolean) {
    super(`no ${readWrite ? 'writable ' : ''}PostgreSQL host among ${listKey(hosts)}`);
  }
}

type Params = { user?: string; password?: unknown; database?: string; ssl?: unknown };

/** Whether `h` answers (and, when `readWrite`, takes writes): a short connection of its own. */
async function probe(h: HostPort, params: Params, readWrite: boolean): Promise<boolean> {
  // (ConnectionParameters keeps the password non-enumerable: name each field)
  const client = new pg.Client({
    user: params.user,
    password: params.password as pg.ClientConfig['password'],
    database: params.database,
    ssl: params.ssl as pg.ClientConfig['ssl'],
    host: h.host,
    port: h.port,
    connectionTimeoutMillis: PROBE_TIMEOUT_MS,
    application_name: 'fes-primary-probe',
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    if (!readWrite) return true;
    const { rows } = await client.query<{ transaction_read_only: string }>('SHOW transaction_read_only');
    return rows[0]?.transaction_read_only === 'off';
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The first listed host that fits, all probed at once (libpq tries them in order; so does the choice). */
async function locate(hosts: HostPort[], params: Params, readWrite: boolean): Promise<HostPort> {
  const fits = await Promise.all(hosts.map((h) => probe(h, params, readWrite)));
  const found = hosts.find((_, i) => fits[i]);
  if (!found) throw new NoPrimaryError(hosts, readWrite);
  return found;
}

type ConnectCallback = Parameters<pg.Client['connect']>[0];

const ignoreLoss = () => undefined;

/**
 * A pg.Client that, given several `hosts` (and `readWrite`), connects to the one that takes writes,
 * as libpq's `target_session_attrs=read-write` does: the host that fitted last is tried first; a
 * connection that fails, turns out read-only or is lost later sends the next one looking again (all
 * hosts probed at once, first in list order wins). With one host and no `readWrite` it is pg.Client.
 * So after a failover the pools' new connections reach the new primary by themselves; while none
 * takes writes, connecting fails with NoPrimaryError (a 503 at the edge).
 */
export class PrimaryClient extends pg.Client {
  private readonly hosts: HostPort[] | undefined;
  private readonly readWrite: boolean;

  constructor(config: MultiHostConfig = {}) {
    // the whole config (pg ignores `hosts`): pg-pool hands it over with a non-enumerable password,
    // which a copy by spread or rest would drop
    super(config);
    this.hosts = config.hosts && config.hosts.length > 0 ? config.hosts : undefined;
    this.readWrite = config.readWrite ?? false;
    // A connection lost while no query runs on it (idle, or between two queries of a transaction: a primary
    // killed in a failover) is an 'error' event, which would end the process where no listener is attached
    // (CONTRACT §22: instances serve again without a restart). Its owner learns of the loss from its next
    // query, or from a listener of its own (pools, Sequelize, the change listener), which still gets it.
    this.on('error', ignoreLoss);
  }

  override connect(): Promise<pg.Client>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.Client> | void {
    if (!this.hosts) return callback ? super.connect(callback) : super.connect();
    const done = this.connectToChosen(this.hosts).then(() => this as pg.Client);
    if (!callback) return done;
    done.then(
      (client) => (callback as (err: null, c: pg.Client) => void)(null, client),
      (err: Error) => (callback as (err: Error) => void)(err),
    );
  }

  private async connectToChosen(hosts: HostPort[]): Promise<void> {
    const key = listKey(hosts);
    const params = (this as unknown as { connectionParameters: Params }).connectionParameters;
    const target = lastFound.get(key) ?? (await locate(hosts, params, this.readWrite));
    const forget = () => {
      if (lastFound.get(key) === target) lastFound.delete(key);
    };
    this.host = target.host;
    this.port = target.port;
    Object.assign(params, { host: target.host, port: target.port });
    try {
      await super.connect();
      if (this.readWrite) {
        const { rows } = await this.query<{ transaction_read_only: string }>('SHOW transaction_read_only');
        if (rows[0]?.transaction_read_only !== 'off') {
          await this.end().catch(() => undefined);
          throw new NoPrimaryError(hosts, true);
        }
      }
    } catch (err) {
      forget();
      throw err;
    }
    lastFound.set(key, target);
    // a lost connection (the primary died or was demoted): the next one looks again
    this.on('error', forget);
  }
}

/** `pg` with PrimaryClient as its Client, for Sequelize's `dialectModule` (one target's hosts built in). */
export function pgModuleFor(target: DatabaseTarget): typeof pg {
  const part = multiHostPart(target);
  class TargetClient extends PrimaryClient {
    constructor(config: pg.ClientConfig = {}) {
      super({ ...config, ...part });
    }
  }
  return { ...pg, Client: TargetClient } as unknown as typeof pg;
}
