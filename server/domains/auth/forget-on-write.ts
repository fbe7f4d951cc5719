import type { Transaction } from 'sequelize';
import { changeListener } from '../../db/change-listener.js';
import { ProjectMember, Session, User, WorkspaceMember } from '../../db/models/index.js';
import { sessionCache } from './authenticate.js';

type WriteOptions = { transaction?: Transaction | null; where?: unknown };

/** What each transaction with auth writes forgets at commit (one hook per transaction). */
const forgetAtCommit = new WeakMap<Transaction, (() => void)[]>();

/**
 * Runs `forget` once the write's transaction commits (at once for a write outside a transaction),
 * then waits until every instance's LISTEN connection has received the change (the database
 * triggers announce it on `auth_changed`): the write, hence the request that made it, completes
 * only once no instance can still serve the old session from memory. Sequelize awaits both its
 * model hooks and a transaction's afterCommit hooks, so the caller's `await` includes the wait.
 * One wait per transaction, however many auth rows it writes.
 */
function afterCommit(options: WriteOptions, forget: () => void): Promise<void> | void {
  const tx = options.transaction;
  if (!tx) {
    forget();
    return changeListener.acknowledgedEverywhere();
  }
  const pending = forgetAtCommit.get(tx);
  if (pending) {
    pending.push(forget);
    return;
  }
  const forgets = [forget];
  forgetAtCommit.set(tx, forgets);
  tx.afterCommit(async () => {
    for (const f of forgets) f();
    await changeListener.acknowledgedEverywhere();
  });
}

/** The user (or session) a bulk write names in its WHERE, if it names exactly one. */
function forgetWhere(where: unknown, key: 'userId' | 'id', evict: (id: string) => void): () => void {
  const value = (where as Record<string, unknown> | undefined)?.[key];
  return typeof value === 'string' ? () => evict(value) : () => sessionCache.clear();
}

let installed = false;

/**
 * Every ORM write of a user, session or membership in this process makes the session cache
 * forget what it changed as soon as it commits, so this instance's next request never runs on
 * old rights; the database triggers of migration 0008 tell the other instances (and cover raw
 * SQL), and the write waits for their acknowledgement (see afterCommit and session-cache.ts).
 */
export function forgetSessionsOnAuthWrites(): void {
  if (installed) return;
  installed = true;
  User.addHook('afterSave', 'forgetSessions', (user: User, options: WriteOptions) =>
    afterCommit(options, () => sessionCache.evictUser(user.id)),
  );
  User.addHook('afterBulkUpdate', 'forgetSessions', (options: WriteOptions) =>
    afterCommit(
      options,
      forgetWhere(options.where, 'id', (id) => sessionCache.evictUser(id)),
    ),
  );
  Session.addHook('afterBulkUpdate', 'forgetSessions', (options: WriteOptions) => {
    const where = options.where as Record<string, unknown> | undefined;
    return afterCommit(
      options,
      typeof where?.userId === 'string'
        ? () => sessionCache.evictUser(where.userId as string)
        : forgetWhere(where, 'id', (sid) => sessionCache.evictSession(sid)),
    );
  });
  for (const model of [WorkspaceMember, ProjectMember] as const) {
    const forget = (member: object, options: WriteOptions) =>
      afterCommit(options, () => sessionCache.evictUser((member as WorkspaceMember | ProjectMember).userId));
    model.addHook('afterCreate', 'forgetSessions', forget);
    model.addHook('afterDestroy', 'forgetSessions', forget);
    model.addHook('afterBulkDestroy', 'forgetSessions', (options: WriteOptions) =>
      afterCommit(
        options,
        forgetWhere(options.where, 'userId', (id) => sessionCache.evictUser(id)),
      ),
    );
  }
}
