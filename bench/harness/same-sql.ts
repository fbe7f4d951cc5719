/**
 * The same-SQL baseline of a route (issue 53): the statements one request of the route runs, captured
 * and turned into a plan that a bare `node:http` + `pg` handler (same-sql-server.ts) replays, one
 * transaction per request, so that ours ÷ it measures what the framework and our code add.
 *
 * Capture: the route's procedure is called in this process through its tRPC caller (the same service
 * code and context as the REST route, as report-sql.ts does for the reports) while pg's Client#query
 * records every statement with its parameters and result rows. The bench's own database, its throwaway
 * user and bodies only: the hook is installed around one call and removed after it, never in the server.
 * Each route is called three times: once to warm its caches (the session, the rules, the prepared
 * statements), then twice recorded, and the two recordings are compared value by value:
 *  - a value that is the same in both is a constant of the plan;
 *  - a value an earlier statement of the same request returned (an id taken from a sequence) is taken
 *    from that statement's result at replay time;
 *  - a value that is the request's input (the entry id of GET /entries/{id}) comes from the request;
 *  - anything else that differs (UUIDs, timestamps, hashes) is made fresh for every replayed request,
 *    so each replayed POST does the real work: a new entry with its items, events and outbox rows.
 * Transaction control (BEGIN/START TRANSACTION/COMMIT/ROLLBACK, savepoints) is dropped: the replay wraps
 * the statements in one BEGIN … COMMIT of its own.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';

/** One value of a statement's parameters, as the replay builds it for each request. */
export type Slot =
  | { k: 'const'; v: unknown }
  | { k: 'ref'; stmt: number; field: string; num: boolean }
  | { k: 'input' }
  | { k: 'uuid'; like: string }
  | { k: 'now' }
  | { k: 'fresh'; like: string }
  | { k: 'json'; t: Slot }
  | { k: 'arr'; items: Slot[] }
  | { k: 'obj'; entries: [string, Slot][] };

export type PlanStatement = { name?: string; text: string; values: Slot[] };
export type SameSqlPlan = { route: string; statements: PlanStatement[]; isolation?: string };

type Recorded = { name?: string; text: string; values: unknown[]; rows: Record<string, unknown>[] };

type QueryFn = (...args: unknown[]) => unknown;
const proto = pg.Client.prototype as unknown as { query: QueryFn };

const TRANSACTION_CONTROL = /^\s*(BEGIN|START TRANSACTION|COMMIT|ROLLBACK|SAVEPOINT|RELEASE SAVEPOINT|END)\b/i;
const SET_TRANSACTION = /^\s*SET TRANSACTION ISOLATION LEVEL\s+([A-Z ]+?)\s*;?\s*$/i;
/**
 * A new connection's set-up (server/db/hosts.ts, Sequelize's pg_backend_pid) and this process's change
 * listener (its own client, session settings, its Citus probe and LISTEN, which may run while a request is
 * recorded: the recording patches every pg.Client): not the request's work.
 */
const CONNECTION_SETUP =
  /^\s*(SHOW transaction_read_only\b|SELECT pg_backend_pid\(\)|SET (?!LOCAL\b)|LISTEN\b|UNLISTEN\b|SELECT EXISTS \(SELECT 1 FROM pg_extension WHERE extname = 'citus'\))/i;

/** Records every statement `call` runs (through any pg.Client) with its values and result rows. */
export async function recordStatements(call: () => Promise<unknown>): Promise<Recorded[]> {
  const recorded: Recorded[] = [];
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const [first, second] = args;
    const config = typeof first === 'object' && first !== null ? (first as { name?: string; text?: string; values?: unknown[] }) : {};
    const text = typeof first === 'string' ? first : config.text;
    const values = Array.isArray(second) ? second : (config.values ?? []);
    const result = original.apply(this, args);
    if (text) {
      const entry: Recorded = { name: config.name, text, values: cloned(values), rows: [] };
      recorded.push(entry);
      if (result && typeof (result as Promise<unknown>).then === 'function') {
        (result as Promise<{ rows?: Record<string, unknown>[] }>).then(
          (r) => (entry.rows = Array.isArray(r?.rows) ? r.rows : []),
          () => undefined,
        );
      }
    }
    return result;
  };
  try {
    await call();
  } finally {
    proto.query = original;
  }
  return recorded;
}

function cloned(values: unknown[]): unknown[] {
  try {
    return structuredClone(values);
  } catch {
    return values; // a value with methods (toPostgres): kept as it is
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}/;

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const isJsonText = (v: unknown): v is string => typeof v === 'string' && /^\s*[[{]/.test(v) && parsesAsJson(v);
function parsesAsJson(v: string): boolean {
  try {
    JSON.parse(v);
    return true;
  } catch {
    return false;
  }
}

/**
 * The plan of a route from two recordings of the same request shape. `inputs` are the request inputs
 * of the two recordings (the entry ids of two GETs), or undefined when the request carries none that
 * varies (POST with the bench's one body).
 */
export function planFrom(route: string, a: Recorded[], b: Recorded[], inputs?: [unknown, unknown]): SameSqlPlan {
  const keep = (r: Recorded[]) => r.filter((s) => !TRANSACTION_CONTROL.test(s.text) && !CONNECTION_SETUP.test(s.text));
  const isolation = a.map((s) => SET_TRANSACTION.exec(s.text)?.[1]).find(Boolean);
  const [ka, kb] = [keep(a), keep(b)].map((r) => r.filter((s) => !SET_TRANSACTION.test(s.text)));
  if (ka.length !== kb.length || ka.some((s, i) => s.text !== kb[i].text)) {
    const show = (r: Recorded[]) => r.map((s) => `  ${s.text.replace(/\s+/g, ' ').slice(0, 160)}`).join('\n');
    throw new Error(`${route}: the two recordings ran different statements:\n${show(ka)}\nand\n${show(kb)}`);
  }
  if (ka.length === 0) throw new Error(`${route}: recorded no SQL`);

  /** values statements before `upTo` returned that neither they nor earlier ones were given: ids made by the database */
  const generated = (r: Recorded[], upTo: number): { stmt: number; field: string; value: unknown }[] => {
    const out: { stmt: number; field: string; value: unknown }[] = [];
    const given = new Set<string>();
    for (let j = 0; j < upTo; j++) {
      for (const v of r[j].values) given.add(String(v));
      const row = r[j].rows[0];
      if (!row) continue;
      for (const [field, value] of Object.entries(row)) {
        if ((typeof value === 'number' || typeof value === 'string') && !given.has(String(value))) out.push({ stmt: j, field, value });
      }
    }
    return out;
  };

  const slot = (x: unknown, y: unknown, genA: ReturnType<typeof generated>, genB: ReturnType<typeof generated>): Slot => {
    if (x instanceof Date || y instanceof Date) return sameValue(x, y) ? { k: 'const', v: x } : { k: 'now' };
    if (sameValue(x, y)) return { k: 'const', v: x };
    const asText = (v: unknown) => (typeof v === 'number' || typeof v === 'string' ? String(v) : undefined);
    const ref = genA.find((g, i) => asText(g.value) === asText(x) && asText(genB[i]?.value) === asText(y) && genB[i].field === g.field);
    if (ref) return { k: 'ref', stmt: ref.stmt, field: ref.field, num: typeof x === 'number' };
    if (inputs && asText(x) === asText(inputs[0]) && asText(y) === asText(inputs[1])) return { k: 'input' };
    if (isJsonText(x) && isJsonText(y)) return { k: 'json', t: slot(JSON.parse(x), JSON.parse(y), genA, genB) };
    if (Array.isArray(x) && Array.isArray(y) && x.length === y.length)
      return { k: 'arr', items: x.map((v, i) => slot(v, y[i], genA, genB)) };
    if (x && y && typeof x === 'object' && typeof y === 'object' && !Array.isArray(x) && !Array.isArray(y)) {
      const keys = Object.keys(x);
      if (sameValue(keys, Object.keys(y))) {
        return { k: 'obj', entries: keys.map((key) => [key, slot((x as never)[key], (y as never)[key], genA, genB)]) };
      }
    }
    if (typeof x === 'string' && UUID.test(x)) return { k: 'uuid', like: x };
    if (typeof x === 'string' && ISO_TIME.test(x)) return { k: 'now' };
    return { k: 'fresh', like: String(x) };
  };

  const statements = ka.map((s, i): PlanStatement => {
    const genA = generated(ka, i);
    const genB = generated(kb, i);
    return { name: s.name, text: s.text, values: s.values.map((v, n) => slot(v, kb[i].values[n], genA, genB)) };
  });
  return { route, statements, isolation };
}

/** How many values of a plan are made per request, by kind (for the bench's note). */
export function planSummary(plan: SameSqlPlan): string {
  const counts = new Map<string, number>();
  const walk = (s: Slot): void => {
    if (s.k === 'json') return walk(s.t);
    if (s.k === 'arr') return s.items.forEach(walk);
    if (s.k === 'obj') return s.entries.forEach(([, v]) => walk(v));
    if (s.k !== 'const') counts.set(s.k, (counts.get(s.k) ?? 0) + 1);
  };
  plan.statements.forEach((st) => st.values.forEach(walk));
  const made = [...counts].map(([k, n]) => `${n} ${k}`).join(', ');
  return `${plan.statements.length} statement(s) in one transaction${made ? `; per request: ${made}` : ''}`;
}

let freshCounter = 0;

function freshLike(like: string): string {
  if (/^[0-9a-f]+$/i.test(like) && like.length >= 16)
    return randomBytes(Math.ceil(like.length / 2))
      .toString('hex')
      .slice(0, like.length);
  return `${like.slice(0, 200)} ${process.pid}-${++freshCounter}`;
}

/** What one replayed request uses: the first rows of its statements so far, its input, its fresh values. */
export type RequestState = { results: (Record<string, unknown> | undefined)[]; input: string | undefined; made: Map<string, unknown> };

/**
 * The value of `s` for one request. A fresh value stands for the same one wherever the recording had the
 * same value (an event's hash is the next one's prev_hash; an event id its outbox row's).
 */
export function render(s: Slot, r: RequestState): unknown {
  switch (s.k) {
    case 'const':
      return s.v;
    case 'ref': {
      const v = r.results[s.stmt]?.[s.field];
      return s.num ? Number(v) : v;
    }
    case 'input':
      return r.input;
    case 'now':
      return new Date();
    case 'uuid':
    case 'fresh': {
      const key = `${s.k}:${s.like}`;
      let v = r.made.get(key);
      if (v === undefined) r.made.set(key, (v = s.k === 'uuid' ? randomUUID() : freshLike(s.like)));
      return v;
    }
    case 'json':
      return JSON.stringify(render(s.t, r));
    case 'arr':
      return s.items.map((item) => render(item, r));
    case 'obj':
      return Object.fromEntries(s.entries.map(([key, v]) => [key, render(v, r)]));
  }
}
