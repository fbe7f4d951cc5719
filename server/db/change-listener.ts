import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { oneAtATime } from '../lib/one-at-a-time.js';
import { runtime } from '../runtime.js';
import { onDatabaseClose, pgClientConfig, PrimaryClient } from './database.js';

/** The channels database triggers announce changes on (migrations 0008, 0010 and 0016). */
export type ChangeChannel = 'auth_changed' | 'entries_changed' | 'rules_changed';
const CHANNELS: ChangeChannel[] = ['auth_changed', 'entries_changed', 'rules_changed'];
const BARRIER = 'barrier:';
/** an acknowledgement request on `auth_changed`: `ack?<reply channel>:<token>` (see acknowledgedEverywhere) */
const ACK_REQUEST = 'ack?';
/**
 * How a LISTEN connection shows in pg_stat_activity once it listens (set after LISTEN, so every
 * connection shown under this name receives whatever is committed after it is seen).
 */
export const LISTENER_APPLICATION_NAME = 'fes-change-listener';
const STARTING_APPLICATION_NAME = `${LISTENER_APPLICATION_NAME} (starting)`;
/** how long a writer waits for every listener's acknowledgement before it goes on with a warning */
export const ACK_TIMEOUT_MS = 2_000;
/** how often a writer still waiting looks whether the listeners it waits for are still connected */
const ACK_RECHECK_MS = 100;

type Subscriber = (payload: string) => void;
type AckRound = { acked: Set<number>; wake: () => void; lost: boolean };

/**
 * One LISTEN connection per process for the in-memory caches (auth sessions, list totals, rule sets)
 * (tests make a second one to stand for another instance's).
 * A cache may serve from memory only while `listening` is true: when the connection drops,
 * every subscriber is reset (caches cleared) and nothing is cached until it is back.
 */
export class ChangeListener {
  private client: pg.Client | undefined;
  private listening = false;
  private starting: Promise<void> | undefined;
  private stopped = false;
  /** the database is a Citus coordinator (CONTRACT §24): nothing is ever heard, so nothing is listened for */
  private onCitus = false;
  private subscribers = new Map<ChangeChannel, Set<Subscriber>>();
  private resetters = new Set<() => void>();
  private barriers = new Map<string, () => void>();
  private nextBarrier: { promise: Promise<void>; token: string } | undefined;
  /** this connection's own channel for acknowledgements (`fes_ack_<backend pid>`) */
  private replyChannel: string | undefined;
  /** the LISTEN connection's backend pid, which its acknowledgements carry */
  private pid: number | undefined;
  private ackRounds = new Map<string, AckRound>();
  private nextAck: Promise<void> | undefined;
  /** the queries of the LISTEN connection, one after another (see inTurn) */
  private queries = oneAtATime();

  /** True while changes are being received; starts listening on first use. */
  isListening(): boolean {
    this.ensureListening();
    return this.listening;
  }

  subscribe(channel: ChangeChannel, onChange: Subscriber, onReset: () => void): void {
    if (!this.subscribers.has(channel)) this.subscribers.set(channel, new Set());
    this.subscribers.get(channel)!.add(onChange);
    this.resetters.add(onReset);
  }

  /**
   * Resolves once every change committed before the call has reached the subscribers: a
   * notification of our own, sent after the call, arrives after all of those (PostgreSQL
   * delivers notifications in commit order). Callers waiting at the same time share one.
   */
  settled(): Promise<void> {
    const client = this.client;
    if (!this.listening || !client) return Promise.resolve();
    if (this.nextBarrier) return this.nextBarrier.promise;
    const token = `${BARRIER}${randomUUID()}`;
    const promise = new Promise<void>((resolve) => this.barriers.set(token, resolve));
    this.nextBarrier = { promise, token };
    setImmediate(() => {
      if (this.nextBarrier?.token === token) this.nextBarrier = undefined;
      this.inTurn(client, `SELECT pg_notify('${CHANNELS[0]}', '${token}')`).catch(() => this.dropClient());
    });
    return promise;
  }

  /**
   * For a writer of an auth change (server/domains/auth/forget-on-write.ts), after its commit and
   * before it answers: resolves once every live LISTEN connection of this database (this
   * process's own included) has received every change committed before the call. It sends an
   * acknowledgement request on `auth_changed`, which each listener reads after every earlier
   * notification (PostgreSQL delivers them in commit order) and answers on the requester's reply
   * channel with its backend pid; the listeners waited for are those pg_stat_activity shows under
   * LISTENER_APPLICATION_NAME when the request is sent. A listener whose connection goes away is
   * no longer waited for (its process clears its caches and reads live until it listens again).
   * Bounded: after `timeoutMs` it logs a warning and resolves (a listener that does not answer,
   * e.g. an instance of a version without acknowledgements, or a stalled one). Callers in the
   * same tick share one round.
   */
  acknowledgedEverywhere(timeoutMs = ACK_TIMEOUT_MS): Promise<void> {
    if (this.nextAck) return this.nextAck;
    const round = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.nextAck = undefined;
      return this.ackRound(randomUUID(), performance.now(), timeoutMs);
    });
    this.nextAck = round;
    return round;
  }

  private async ackRound(token: string, started: number, timeoutMs: number): Promise<void> {
    const deadline = started + timeoutMs;
    const warn = (why: string, extra: object = {}) =>
      runtime().logger.warn({ ...extra, waitedMs: Math.round(performance.now() - started) }, `change listener: ${why}`);
    if (!this.listening) {
      this.ensureListening();
      await Promise.race([this.starting, sleepUntil(deadline)]);
    }
    const client = this.client;
    const replyChannel = this.replyChannel;
    if (!this.listening || !client || !replyChannel) {
      return warn('no LISTEN connection to collect acknowledgements on; other instances learn of the change by notification only');
    }
    let timer: NodeJS.Timeout | undefined;
    const state: AckRound = { acked: new Set(), wake: () => undefined, lost: false };
    this.ackRounds.set(token, state);
    try {
      const { rows } = await this.inTurn<{ pids: number[] }>(
        client,
        `SELECT ARRAY(SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1) AS pids,
                pg_notify($2, $3)`,
        [LISTENER_APPLICATION_NAME, CHANNELS[0], `${ACK_REQUEST}${replyChannel}:${token}`],
      );
      let waitingFor = rows[0].pids;
      for (;;) {
        waitingFor = waitingFor.filter((pid) => !state.acked.has(pid));
        if (waitingFor.length === 0) return;
        if (state.lost) return warn('LISTEN connection lost while collecting acknowledgements', { waitingFor });
        const left = deadline - performance.now();
        if (left <= 0) return warn('listeners did not acknowledge an auth change in time', { waitingFor });
        const woken = await new Promise<boolean>((resolve) => {
          state.wake = () => resolve(true);
          timer = setTimeout(() => resolve(false), Math.min(left, ACK_RECHECK_MS));
        });
        clearTimeout(timer);
        if (!woken && !state.lost) {
          // still waiting: forget listeners whose connection is gone since the request
          const alive = await this.inTurn<{ pid: number }>(
            client,
            'SELECT pid FROM pg_stat_activity WHERE pid = ANY($1::int[]) AND application_name = $2',
            [waitingFor, LISTENER_APPLICATION_NAME],
          );
          const pids = new Set(alive.rows.map((r) => r.pid));
          waitingFor = waitingFor.filter((pid) => pids.has(pid));
        }
      }
    } catch (err) {
      warn('acknowledgement round failed', { err });
    } finally {
      clearTimeout(timer);
      this.ackRounds.delete(token);
    }
  }

  /** Answers an acknowledgement request: every notification before it has been delivered already. */
  private acknowledge(request: string): void {
    const client = this.client;
    const at = request.lastIndexOf(':');
    if (!client || at < 0) return;
    const replyTo = request.slice(ACK_REQUEST.length, at);
    const token = request.slice(at + 1);
    this.inTurn(client, 'SELECT pg_notify($1, $2)', [replyTo, `${token}:${this.pid}`]).catch(() => this.dropClient());
  }

  /**
   * A query on the LISTEN connection once every query sent on it before has ended: barriers,
   * acknowledgement rounds and answers to them are sent from independent callbacks, and pg 8
   * only queues a query sent while another runs (with a deprecation warning; pg 9 refuses it).
   */
  private inTurn<R extends pg.QueryResultRow>(client: pg.Client, text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    return this.queries(() => client.query<R>(text, values));
  }

  private received(reply: string): void {
    const at = reply.lastIndexOf(':');
    const round = this.ackRounds.get(reply.slice(0, at));
    if (!round) return;
    round.acked.add(Number(reply.slice(at + 1)));
    round.wake();
  }

  private ensureListening(): void {
    if (this.listening || this.starting || this.stopped || this.onCitus) return;
    this.starting = this.listen()
      .catch((err: unknown) => {
        runtime().logger.warn({ err }, 'change listener: LISTEN failed; caches read the database until it works');
        void this.dropClient();
      })
      .finally(() => (this.starting = undefined));
  }

  private async listen(): Promise<void> {
    const client = new PrimaryClient({ ...pgClientConfig(), application_name: STARTING_APPLICATION_NAME });
    this.client = client;
    const unregister = onDatabaseClose(() => this.stop());
    client.on('notification', (msg) => this.deliver(msg.channel, msg.payload ?? ''));
    client.on('error', () => void this.dropClient());
    client.on('end', () => {
      unregister();
      void this.dropClient();
    });
    await client.connect();
    const { rows: citus } = await this.inTurn<{ on: boolean }>(
      client,
      `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS on`,
    );
    if (citus[0]?.on) {
      // CONTRACT §24: the tenant tables' rows, hence their triggers, are on the Citus workers, whose
      // notifications never reach this coordinator connection (migration 0049 drops those triggers):
      // the caches never serve from memory there, they read the database on every request
      this.onCitus = true;
      runtime().logger.info('change listener: the database is a Citus coordinator; the in-memory caches stay off');
      await this.dropClient();
      await client.end().catch(() => undefined);
      return;
    }
    // the barrier notifications this connection sends need no durable commit
    await this.inTurn(client, 'SET synchronous_commit = off');
    const { rows } = await this.inTurn<{ pid: number }>(client, 'SELECT pg_backend_pid() AS pid');
    const pid = rows[0].pid;
    const replyChannel = `fes_ack_${pid}`;
    for (const channel of [...CHANNELS, replyChannel]) await this.inTurn(client, `LISTEN ${channel}`);
    // only now does this connection count as a listener writers wait for (acknowledgedEverywhere)
    await this.inTurn(client, `SET application_name = '${LISTENER_APPLICATION_NAME}'`);
    this.replyChannel = replyChannel;
    this.pid = pid;
    // whatever was kept before (while not listening nothing is) is forgotten on every (re)connection
    this.resetAll();
    this.listening = true;
  }

  private deliver(channel: string, payload: string): void {
    if (channel === this.replyChannel) return this.received(payload);
    if (payload.startsWith(BARRIER)) {
      this.barriers.get(payload)?.();
      this.barriers.delete(payload);
      return;
    }
    if (payload.startsWith(ACK_REQUEST)) return this.acknowledge(payload);
    for (const onChange of this.subscribers.get(channel as ChangeChannel) ?? []) onChange(payload);
  }

  private resetAll(): void {
    for (const reset of this.resetters) reset();
  }

  private dropClient(): Promise<void> {
    this.listening = false;
    this.resetAll();
    for (const resolve of this.barriers.values()) resolve();
    this.barriers.clear();
    this.nextBarrier = undefined;
    for (const round of this.ackRounds.values()) {
      round.lost = true;
      round.wake();
    }
    const client = this.client;
    this.client = undefined;
    this.queries = oneAtATime(); // a new connection does not wait for the old one's queries
    this.replyChannel = undefined;
    this.pid = undefined;
    return client ? client.end().catch(() => undefined) : Promise.resolve();
  }

  /** Closes the LISTEN connection for good (when the database closes; a second listener in tests). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.starting;
    await this.dropClient();
  }
}

function sleepUntil(deadline: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - performance.now())).unref());
}

export const changeListener = new ChangeListener();
