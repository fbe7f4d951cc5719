import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { runtime } from '../runtime.js';
import { onDatabaseClose, pgClientConfig } from './database.js';

/** The channels database triggers announce changes on (migrations 0008, 0010 and 0016). */
export type ChangeChannel = 'auth_changed' | 'entries_changed' | 'rules_changed';
const CHANNELS: ChangeChannel[] = ['auth_changed', 'entries_changed', 'rules_changed'];
const BARRIER = 'barrier:';
/** how the LISTEN connection shows in pg_stat_activity */
export const LISTENER_APPLICATION_NAME = 'fes-change-listener';

type Subscriber = (payload: string) => void;

/**
 * One LISTEN connection per process for the in-memory caches (auth sessions, list totals, rule sets).
 * A cache may serve from memory only while `listening` is true: when the connection drops,
 * every subscriber is reset (caches cleared) and nothing is cached until it is back.
 */
class ChangeListener {
  private client: pg.Client | undefined;
  private listening = false;
  private starting: Promise<void> | undefined;
  private stopped = false;
  private subscribers = new Map<ChangeChannel, Set<Subscriber>>();
  private resetters = new Set<() => void>();
  private barriers = new Map<string, () => void>();
  private nextBarrier: { promise: Promise<void>; token: string } | undefined;

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
      client.query(`SELECT pg_notify('${CHANNELS[0]}', '${token}')`).catch(() => this.dropClient());
    });
    return promise;
  }

  private ensureListening(): void {
    if (this.listening || this.starting || this.stopped) return;
    this.starting = this.listen()
      .catch((err: unknown) => {
        runtime().logger.warn({ err }, 'change listener: LISTEN failed; caches read the database until it works');
        void this.dropClient();
      })
      .finally(() => (this.starting = undefined));
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ ...pgClientConfig(), application_name: LISTENER_APPLICATION_NAME });
    this.client = client;
    const unregister = onDatabaseClose(() => this.stop());
    client.on('notification', (msg) => this.deliver(msg.channel as ChangeChannel, msg.payload ?? ''));
    client.on('error', () => void this.dropClient());
    client.on('end', () => {
      unregister();
      void this.dropClient();
    });
    await client.connect();
    // the barrier notifications this connection sends need no durable commit
    await client.query('SET synchronous_commit = off');
    for (const channel of CHANNELS) await client.query(`LISTEN ${channel}`);
    this.resetAll();
    this.listening = true;
  }

  private deliver(channel: ChangeChannel, payload: string): void {
    if (payload.startsWith(BARRIER)) {
      this.barriers.get(payload)?.();
      this.barriers.delete(payload);
      return;
    }
    for (const onChange of this.subscribers.get(channel) ?? []) onChange(payload);
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
    const client = this.client;
    this.client = undefined;
    return client ? client.end().catch(() => undefined) : Promise.resolve();
  }

  private async stop(): Promise<void> {
    this.stopped = true;
    await this.starting;
    await this.dropClient();
  }
}

export const changeListener = new ChangeListener();
