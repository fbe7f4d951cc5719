import type { Transaction } from 'sequelize';
import { ProjectMember, Session, User, WorkspaceMember } from '../../db/models/index.js';
import { sessionCache } from './authenticate.js';

type WriteOptions = { transaction?: Transaction | null; where?: unknown };

/** Runs `forget` once the write's transaction commits (at once for a write outside a transaction). */
function afterCommit(options: WriteOptions, forget: () => void): void {
  if (options.transaction) options.transaction.afterCommit(forget);
  else forget();
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
 * old rights; the database triggers of migration 0008 tell the other instances (and cover raw SQL).
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
    afterCommit(
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
