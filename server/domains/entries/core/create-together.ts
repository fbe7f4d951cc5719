import type { Transaction } from '../../../db/database.js';
import { clock } from '../../../lib/clock.js';
import { reloadRow, type EntryRow } from '../entry-rows.js';
import { createdChain } from '../entry-writes.js';
import { insertEntriesTogether, type GroupedNewEntry } from '../entry-writes-many.js';
import { SYSTEM, type EventActor } from '../audit-events.js';
import { manualSourceId } from '../references.js';
import { prepareMany, type PrepareRequest } from './create-prepare.js';
import { applyEffects } from './change.js';
import { postEntries } from '../../books/index.js';
import {
  assertInsertedAsExpected,
  assertRuledWithinReach,
  expectedRow,
  newEntryFields,
  referencesAdded,
  type EntryDraft,
} from './create.js';
import { reactions, type PreparedNewEntries } from './reactions.js';

/** One POST /entries of a group: its draft, whose write it is, where it may write, and its caller's async context. */
export type CreateRequest = {
  given: EntryDraft;
  actor: EventActor;
  reaches: (projectId: number) => boolean;
  inContext<T>(fn: () => T): T;
};

/** Per request: its new row, its own error (400/403/409), or "create it alone" (what only createEntryRow does). */
export type CreateOutcome = { row: EntryRow } | { error: unknown } | { alone: true };

type Ruled = { request: CreateRequest; index: number; draft: EntryDraft; ruled: PreparedNewEntries };

/**
 * Several creates of CONTRACT §5 in one transaction, set-based (group commit, issue 35): each is what
 * createEntryRow (create.ts) makes of it — the rules of §16 (trigger CREATE), the same checks in the same order
 * with the same errors, PENDING, valued (§17), its items, payments, tags, ENTRY_CREATED and RULE_APPLIED events by
 * its own actor, its outbound events, its reviews, its budget.exceeded — but one statement checks all of them and one inserts all of
 * them. A bad request gets its own error and is not written; the others are. A request whose rules request
 * documents changes after its insert, which only createEntryRow handles: it is left to be created alone.
 */
export async function createEntryRowsTogether(tx: Transaction, requests: CreateRequest[]): Promise<CreateOutcome[]> {
  const outcomes: CreateOutcome[] = new Array(requests.length);
  const ruled: Ruled[] = [];
  for (const [index, request] of requests.entries()) {
    const { given } = request;
    const rules = await reactions().entriesBeforeCreate(tx, given.workspaceId, 'CREATE', [newEntryFields(given)], {});
    if (rules.changesAfterInsert) {
      outcomes[index] = { alone: true };
      continue;
    }
    const draft: EntryDraft = { ...given, ...rules.drafts[0] };
    try {
      assertRuledWithinReach(given, draft, request.reaches);
      ruled.push({ request, index, draft, ruled: rules });
    } catch (error) {
      outcomes[index] = { error };
    }
  }
  const verdicts = ruled.length ? await prepareMany(tx, ruled.map(checksOf)) : [];
  const now = clock.now();
  const writes: { r: Ruled; entry: GroupedNewEntry; expected: EntryRow; owed: { reviewsDue: boolean; budgetsDue: boolean } }[] = [];
  for (const [i, r] of ruled.entries()) {
    const verdict = verdicts[i];
    if ('error' in verdict) {
      outcomes[r.index] = verdict;
      continue;
    }
    const { prepared } = verdict;
    const entrySourceId = r.draft.entrySourceId ?? prepared.manual_source_id ?? (await manualSourceId(tx, r.draft.workspaceId));
    const valuation =
      prepared.fx_rate === null
        ? { fxRate: null, fxRateDate: null, amountBaseCents: null }
        : { fxRate: prepared.fx_rate, fxRateDate: prepared.fx_rate_date, amountBaseCents: prepared.amount_base_cents };
    const fields = { ...r.draft, entrySourceId, id: Number(prepared.entry_id), valuation };
    // built in the caller's context: its events name its transport (via)
    const events = r.request.inContext(() => createdChain(fields, r.request.actor, {}, r.ruled.events[0], now));
    const expected = expectedRow(fields, now);
    writes.push({
      r,
      entry: { row: expected, items: fields.items, transactions: fields.transactions, tagIds: fields.tagIds, events },
      expected,
      owed: { reviewsDue: prepared.reviews_due, budgetsDue: prepared.budgets_due },
    });
  }
  if (writes.length === 0) return outcomes;
  const outbox = reactions().createdOutbox(
    tx,
    writes.map((w) => w.expected),
  );
  const rows = new Map(
    (
      await insertEntriesTogether(
        tx,
        writes.map((w) => w.entry),
        now,
        outbox,
      )
    ).map((row) => [Number(row.id), row]),
  );
  const budgeted: EntryRow[] = [];
  for (const { r, entry, expected, owed } of writes) {
    let row = rows.get(Number(entry.row.id));
    if (!row) throw new Error(`create: entry ${entry.row.id} of a group was not inserted`);
    assertInsertedAsExpected(row, expected);
    if (owed.reviewsDue) row = await r.request.inContext(() => queueReviews(tx, row!, r.request.actor));
    if (owed.budgetsDue) budgeted.push(row);
    outcomes[r.index] = { row };
  }
  // CONTRACT §25: budget.exceeded for the lines the group's entries took past their budgets, one statement per
  // workspace (a budget event names no actor; without reviews due, entriesCreated checks the budgets and nothing else)
  if (budgeted.length > 0)
    await applyEffects(
      tx,
      await reactions().entriesCreated(tx, budgeted, SYSTEM, undefined, { published: true, reviewsDue: false }),
      SYSTEM,
    );
  // CONTRACT §23: the books post what the new entries post, one statement for the group
  await postEntries(
    tx,
    outcomes.flatMap((o) => (o && 'row' in o ? [o.row] : [])),
  );
  return outcomes;
}

/** What prepare checks for one create: the references as the caller gave them, then as the rules left them. */
const checksOf = ({ request: { given }, draft }: Ruled): PrepareRequest => ({
  given,
  draft,
  checks: [
    {
      partyIds: [given.fromPartyId, given.toPartyId],
      tagIds: given.tagIds,
      entrySourceId: given.entrySourceId,
      categoryIds: [given.categoryId, ...(given.items ?? []).map((it) => it.categoryId)],
    },
    referencesAdded(given, draft),
  ],
});

/** The reviews its connections require (entriesCreated; its outbound events went with the insert, its budgets are checked with the group's), by its own actor. */
async function queueReviews(tx: Transaction, row: EntryRow, actor: EventActor): Promise<EntryRow> {
  const effects = await reactions().entriesCreated(tx, [row], actor, undefined, { published: true, reviewsDue: true, budgetsDue: false });
  return (await applyEffects(tx, effects, actor)) ? reloadRow(tx, row.id) : row;
}
