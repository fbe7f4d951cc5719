import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../db/database.js';
import { AppError, badRequest } from '../../lib/errors.js';
import { todayUtc } from '../../lib/dates.js';
import { clock } from '../../lib/clock.js';
import type { Actor } from '../../lib/scope.js';
import { OCCURRENCE_RANGE_MAX_DAYS, type OccurrenceObject, type RunRecurringEntryResult } from '../../../shared/contracts/recurring.js';
import { ledger, type EventActor } from '../entries/index.js';
import { datesBetween, nextDate, type Window } from './schedule.js';
import { loadRecurring, recurringRow, type RecurringRow } from './recurring-rows.js';

/*
 * The occurrences of a recurring entry (CONTRACT §25). Making them is one transaction per recurring entry: its row
 * locked FOR UPDATE (instances, restarts and `run` take turns on it), the dates due after the last one recorded,
 * oldest first, each created through the ledger core as POST /entries creates (in a savepoint: a refusal leaves
 * nothing of it) and recorded CREATED, or SKIPPED with the refusal's message and never retried. The primary key
 * of recurring_occurrences (recurring_entry_id, occurrence_date), and the entries' own unique key on the pair,
 * make each occurrence happen at most once whatever runs it.
 */

const dayAfter = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
const windowOf = (r: RecurringRow): Window => ({ startDate: r.start_date, endDate: r.end_date });

/** The actor an occurrence is made as: the recurring entry's creator, or the API key that made it (CONTRACT §19). */
const makerOf = (r: RecurringRow): EventActor =>
  r.api_key_id ? { actorType: 'API_KEY', actorId: r.api_key_id } : { actorType: 'USER', actorId: r.created_by };

/** The last occurrence date recorded (made or skipped), or null. */
async function lastRecorded(tx: Transaction | undefined, id: string): Promise<string | null> {
  const [row] = await db().query<{ last: string | null }>(
    'SELECT max(occurrence_date)::text AS last FROM recurring_occurrences WHERE recurring_entry_id = :id',
    { replacements: { id }, type: QueryTypes.SELECT, transaction: tx },
  );
  return row.last;
}

/** The next date the scheduler has to make, after the last one recorded (null: none left). */
export async function nextOccurrenceOf(tx: Transaction, r: Pick<RecurringRow, 'id' | 'rrule' | 'start_date' | 'end_date'>) {
  return nextDate(r.rrule, { startDate: r.start_date, endDate: r.end_date }, await lastRecorded(tx, r.id));
}

type Outcome = { status: 'CREATED'; entryId: number } | { status: 'SKIPPED'; reason: string };

/** One occurrence through the ledger core, in a savepoint: its entry, or the refusal (an AppError) as a reason. */
async function makeOne(tx: Transaction, r: RecurringRow, date: string): Promise<Outcome> {
  const t = r.template;
  try {
    const row = await db().transaction({ transaction: tx }, (savepoint) =>
      ledger.create(
        savepoint,
        {
          workspaceId: r.workspace_id,
          projectId: r.project_id,
          entryType: t.entryType,
          amountCents: t.amountCents,
          baseCurrency: t.baseCurrency,
          fromPartyId: t.fromPartyId,
          toPartyId: t.toPartyId,
          description: t.description,
          reference: t.reference,
          categoryId: t.categoryId,
          tagIds: t.tagIds,
          entryDate: date,
          createdBy: r.created_by,
          recurringEntryId: r.id,
          occurrenceDate: date,
        },
        makerOf(r),
        undefined,
        { trigger: 'RECURRING' },
      ),
    );
    return { status: 'CREATED', entryId: Number(row.id) };
  } catch (err) {
    if (err instanceof AppError) return { status: 'SKIPPED', reason: err.message.slice(0, 2000) };
    throw err;
  }
}

/**
 * Makes every occurrence of the recurring entry due through `through` (inclusive) that is not recorded yet, oldest
 * first, in the caller's transaction; keeps next_occurrence. Nothing for an inactive or unknown entry.
 */
export async function makeDue(
  tx: Transaction,
  id: string,
  through: string,
  opts: { skipLocked?: boolean; limit?: number } = {},
): Promise<RunRecurringEntryResult & { more: boolean }> {
  const result = { created: 0, skipped: 0, entryIds: [] as number[], more: false };
  const r = await recurringRow(tx, id, opts.skipLocked ? 'FOR UPDATE SKIP LOCKED' : 'FOR UPDATE');
  if (!r?.is_active) return result;
  const last = await lastRecorded(tx, id);
  // one more than the limit: whether dates are left for the caller's next transaction
  const found = datesBetween(r.rrule, windowOf(r), last === null ? r.start_date : dayAfter(last), through, opts.limit && opts.limit + 1);
  result.more = opts.limit !== undefined && found.length > opts.limit;
  const dates = result.more ? found.slice(0, opts.limit) : found;
  const outcomes: (Outcome & { date: string })[] = [];
  for (const date of dates) {
    const outcome = await makeOne(tx, r, date);
    outcomes.push({ ...outcome, date });
    if (outcome.status === 'CREATED') {
      result.created++;
      result.entryIds.push(outcome.entryId);
    } else result.skipped++;
  }
  const next = nextDate(r.rrule, windowOf(r), dates.at(-1) ?? last);
  await db().query(
    `WITH made AS (
       INSERT INTO recurring_occurrences (recurring_entry_id, workspace_id, occurrence_date, status, entry_id, reason, created_at)
       SELECT :id, :ws, o.date, o.status, o.entry_id, o.reason, :now
         FROM jsonb_to_recordset(CAST(:outcomes AS jsonb)) AS o(date date, status text, entry_id bigint, reason text)
     )
     UPDATE recurring_entries SET next_occurrence = :next WHERE id = :id`,
    {
      replacements: {
        id,
        ws: r.workspace_id,
        now: clock.now(),
        next,
        outcomes: JSON.stringify(
          outcomes.map((o) => ({
            date: o.date,
            status: o.status,
            entry_id: o.status === 'CREATED' ? o.entryId : null,
            reason: o.status === 'SKIPPED' ? o.reason : null,
          })),
        ),
      },
      transaction: tx,
    },
  );
  return result;
}

/** POST /recurring-entries/{id}/run: every due occurrence through `through` (default today; a future date: 400), now. */
export async function runRecurring(actor: Actor, input: { id: string; through?: string }): Promise<RunRecurringEntryResult> {
  const today = todayUtc();
  const through = input.through ?? today;
  return transaction(async (tx) => {
    await loadRecurring(actor, input.id, tx);
    if (through > today) throw badRequest(`through ${through} is in the future (today is ${today} UTC)`);
    const { more: _none, ...made } = await makeDue(tx, input.id, through);
    return made;
  });
}

const daysBetween = (from: string, to: string) => (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000;

/** GET /recurring-entries/{id}/occurrences: the rule's dates in [from, to] with what became of each (past and future alike). */
export async function listOccurrences(actor: Actor, input: { id: string; from: string; to: string }): Promise<OccurrenceObject[]> {
  const r = await loadRecurring(actor, input.id);
  if (input.from > input.to) throw badRequest('from is after to');
  if (daysBetween(input.from, input.to) >= OCCURRENCE_RANGE_MAX_DAYS)
    throw badRequest(`from and to may span at most ${OCCURRENCE_RANGE_MAX_DAYS} days`);
  const recorded = await db().query<{ date: string; status: 'CREATED' | 'SKIPPED'; entry_id: number | null; reason: string | null }>(
    `SELECT occurrence_date::text AS date, status, entry_id, reason FROM recurring_occurrences
      WHERE recurring_entry_id = :id AND occurrence_date BETWEEN :from AND :to`,
    { replacements: { id: r.id, from: input.from, to: input.to }, type: QueryTypes.SELECT },
  );
  const byDate = new Map<string, OccurrenceObject>(
    recorded.map((o) => [
      o.date,
      { occurrenceDate: o.date, status: o.status, entryId: o.entry_id === null ? null : Number(o.entry_id), reason: o.reason },
    ]),
  );
  if (r.is_active) {
    const last = await lastRecorded(undefined, r.id);
    for (const date of datesBetween(r.rrule, windowOf(r), input.from, input.to, OCCURRENCE_RANGE_MAX_DAYS)) {
      if (!byDate.has(date) && (last === null || date > last))
        byDate.set(date, { occurrenceDate: date, status: 'SCHEDULED', entryId: null, reason: null });
    }
  }
  return [...byDate.values()].sort((a, b) => (a.occurrenceDate < b.occurrenceDate ? -1 : 1));
}
