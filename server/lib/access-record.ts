import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * One access check a request passed, with the status it answers when it fails (CONTRACT §2):
 * a permission (403), a workspace named in the request (403), a workspace's or project's object (404).
 */
export type AccessCheck =
  { permission: string } | { workspace: number; status: 403 | 404 } | { reach: number } | { project: number; workspace: number };

/**
 * The access checks a keyed request passed (CONTRACT §1): its replay is served only when each of
 * them still passes for the caller as it is now. lib/scope.ts reports every check it passes here
 * while a record is open (the idempotency middleware opens one per keyed request).
 */
const current = new AsyncLocalStorage<Map<string, AccessCheck>>();

export function recordingAccess<T>(record: Map<string, AccessCheck>, fn: () => T): T {
  return current.run(record, fn);
}

export function recordAccess(check: AccessCheck): void {
  const record = current.getStore();
  if (record) record.set(JSON.stringify(check), check);
}
