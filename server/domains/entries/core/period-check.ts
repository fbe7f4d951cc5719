import type { Transaction } from '../../../db/database.js';
import { conflict } from '../../../lib/errors.js';
import { assertPeriodsOpen } from '../../periods/index.js';
import { preparedQuery } from './raw-sql.js';

/**
 * periods' assertPeriodsOpen in ONE round trip: the shared period lock and the check of each date, through
 * migration 0019's function (its check runs with a snapshot taken after the lock). 409 for the first date,
 * in the given order, that lies in a closed period.
 */
export async function assertPeriodsOpenAt(tx: Transaction, workspaceId: number, dates: (string | undefined)[]): Promise<void> {
  const days = [...new Set(dates.filter((d): d is string => !!d))];
  if (days.length === 0) return assertPeriodsOpen(tx, workspaceId, []);
  const rows = await preparedQuery<{ day: string; closed: string | null }>(
    tx,
    'entries_closed_periods',
    `SELECT d.day::text AS day, entry_write_closed_period($1::int, d.day) AS closed
       FROM unnest($2::date[]) WITH ORDINALITY AS d(day, n) ORDER BY d.n`,
    [workspaceId, days],
  );
  const hit = rows.find((r) => r.closed !== null);
  if (hit) throw conflict(`${hit.day} is in the closed accounting period "${hit.closed}"`);
}
