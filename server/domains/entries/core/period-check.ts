import type { Transaction } from '../../../db/database.js';
import { conflict, quotedValue } from '../../../lib/errors.js';
import { preparedQuery } from '../../../db/prepared.js';

/**
 * CONTRACT §7 "in a closed period", asked of PostgreSQL's one definition (migration 0023's `closed_period_name`,
 * through `entry_write_closed_period`, which takes the workspace's shared period lock first and checks with a
 * snapshot taken after it). ONE round trip for every date. Returns date → name of its closed period, for the dates
 * that lie in one.
 */
export async function closedPeriodsAt(tx: Transaction, workspaceId: number, dates: (string | undefined)[]): Promise<Map<string, string>> {
  const days = [...new Set(dates.filter((d): d is string => !!d))];
  if (days.length === 0) return new Map();
  const rows = await preparedQuery<{ day: string; closed: string | null }>(
    tx,
    'entries_closed_periods',
    `SELECT d.day::text AS day, entry_write_closed_period($1::int, d.day) AS closed
       FROM unnest($2::date[]) WITH ORDINALITY AS d(day, n) ORDER BY d.n`,
    [workspaceId, days],
  );
  return new Map(rows.filter((r) => r.closed !== null).map((r) => [r.day, r.closed!]));
}

export const closedPeriodMessage = (day: string, name: string) => `${day} is in the closed accounting period ${quotedValue(name)}`;

/** 409 for the first date, in the given order, that lies in a closed period. */
export async function assertPeriodsOpenAt(tx: Transaction, workspaceId: number, dates: (string | undefined)[]): Promise<void> {
  const closed = await closedPeriodsAt(tx, workspaceId, dates);
  const hit = dates.find((d) => d !== undefined && closed.has(d));
  if (hit) throw conflict(closedPeriodMessage(hit, closed.get(hit)!));
}
