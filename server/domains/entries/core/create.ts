import type { Transaction } from '../../../db/database.js';
import { onCitus } from '../../../db/distributed.js';
import { clock } from '../../../lib/clock.js';
import { reloadRow, type EntryRow } from '../entry-rows.js';
import { createdChain, linkEntries } from '../entry-writes.js';
import { insertEntriesTogether, type GroupedNewEntry } from '../entry-writes-many.js';
import { recordEvent, SYSTEM, type EventActor } from '../audit-events.js';
import { manualSourceId } from '../references.js';
import { assertCaps } from './caps.js';
import { prepareMany, type Prepared } from './create-prepare.js';
import { applyEffects } from './change.js';
import { newEntryPosting, postEntries } from '../../books/index.js';
import {
  assertInsertedAsExpected,
  assertRuledWithinReach,
  carriedTags,
  checksOf,
  derivedOf,
  expectedRow,
  newEntryFields,
  type CreateOptions,
  type CreateOutcome,
  type CreateRequest,
  type DerivedFrom,
  type EntryDraft,
} from './create-rows.js';
import { reactions, type PreparedNewEntries } from './reactions.js';

export type { CreateOptions, CreateOutcome, CreateRequest, DerivedFrom, EntryDraft } from './create-rows.js';

const LINK_EVENT = {
  REFUND: { kind: 'REFUND_CREATED', idKey: 'refundEntryId' },
  REIMBURSEMENT: { kind: 'REIMBURSEMENT_CREATED', idKey: 'reimbursementEntryId' },
  CORRECTION: { kind: 'CORRECTION_CREATED', idKey: 'correctionEntryId' },
} as const;

/** A create after the rules ran on it (`ruled` undefined without a trigger). */
type Ruled = { request: CreateRequest; index: number; draft: EntryDraft; carried: number[]; ruled?: PreparedNewEntries };
/** A create about to be inserted: its row and parts, whether its outbound events go with the insert, and what it owes. */
type Write = { r: Ruled; entry: GroupedNewEntry; published: boolean; prepared: Prepared };

/**
 * The story of a create (CONTRACT §5, and the new entry of a refund, reimbursement or correction), for one
 * request or a group of POST /entries written together (server/db/commit-group.ts), step by step:
 *  1. the rules of §16 change each draft, in memory; a rule may not move it out of the writer's reach (403);
 *  2. one statement checks every create: a closed period (409), references not the workspace's (400), and
 *     looks up its id, its valuation (§17), whether reviews or budgets are due;
 *  3. one statement inserts every entry PENDING with its items, payments, tags, ENTRY_CREATED (and RULE_APPLIED)
 *     by its own actor, the outbound events of those that stay as inserted (§15), and the books' ENTRY
 *     transaction of each one without items (§23, the books' newEntryPosting; not on Citus);
 *  4. a derived entry is linked to its original, the original records its *_CREATED event, the caps hold (§5);
 *  5. what the rules ask once it exists: the documents they request (§16);
 *  6. what other domains owe it: its outbound events if step 5 changed it, its reviews (§8) by its own actor,
 *     then budget.exceeded for the lines the entries took past their budgets (§25), once for all;
 *  7. the books post the new entries step 3 did not post, and those changed since (§23).
 * A request refused in steps 1–2 gets its own error and writes nothing; the others are written. On Citus a
 * group is written create by create (createOneByOne).
 */
export async function createEntries(tx: Transaction, requests: CreateRequest[]): Promise<CreateOutcome[]> {
  if (requests.length > 1 && requests.some((r) => r.derivedFrom)) throw new Error('create: a derived entry is created alone');
  if (requests.length > 1 && (await onCitus())) return createOneByOne(tx, requests);
  const outcomes: CreateOutcome[] = new Array(requests.length);
  const now = clock.now();
  const ruled = await runRules(tx, requests, outcomes);
  const writes = await rowsToWrite(tx, ruled, outcomes, now);
  if (writes.length === 0) return outcomes;
  const derived = derivedOf(requests[0].derivedFrom);
  const outbox = reactions().createdOutbox(
    tx,
    writes.filter((w) => w.published).map((w) => w.entry.row),
    derived,
  );
  const { rows: inserted, postedIds } = await insertEntriesTogether(
    tx,
    writes.map((w) => w.entry),
    now,
    outbox,
    await newEntryPosting(),
  );
  const rows = new Map(inserted.map((row) => [Number(row.id), row]));
  const budgeted: EntryRow[] = [];
  const toPost: EntryRow[] = [];
  for (const w of writes) {
    const insertedRow = rows.get(Number(w.entry.row.id));
    if (!insertedRow) throw new Error(`create: entry ${w.entry.row.id} was not inserted`);
    let row = insertedRow;
    if (w.published) assertInsertedAsExpected(row, w.entry.row);
    const { request } = w.r;
    if (request.derivedFrom) await linkToOriginal(tx, row, request.derivedFrom, request.actor);
    if (w.r.ruled?.changesAfterInsert && (await applyEffects(tx, await w.r.ruled.afterInsert(tx, [row]), request.actor)))
      row = await reloadRow(tx, row.id);
    row = await owedTo(tx, row, w, derived);
    if (w.prepared.budgets_due) budgeted.push(row);
    // a row read again changed after its insert: the books post it as it is now
    if (!postedIds.has(Number(row.id)) || row !== insertedRow) toPost.push(row);
    outcomes[w.r.index] = { row };
  }
  // CONTRACT §25: one statement per workspace (a budget event names no actor); entriesCreated, without reviews
  // due and with its outbound events published, checks the budgets and nothing else
  if (budgeted.length > 0)
    await applyEffects(
      tx,
      await reactions().entriesCreated(tx, budgeted, SYSTEM, undefined, { published: true, reviewsDue: false }),
      SYSTEM,
    );
  await postEntries(tx, toPost);
  return outcomes;
}

/**
 * A group on Citus (CONTRACT §24): each create in turn, in the group's transaction. The statements of a larger
 * group read their workspaces from JSON, which Citus cannot route to one shard group; a group of one binds its
 * workspace and date as parameters.
 */
async function createOneByOne(tx: Transaction, requests: CreateRequest[]): Promise<CreateOutcome[]> {
  const outcomes: CreateOutcome[] = [];
  for (const request of requests) outcomes.push(...(await createEntries(tx, [request])));
  return outcomes;
}

/** One create, alone: its new row, or its error thrown. */
export async function createEntryRow(
  tx: Transaction,
  given: EntryDraft,
  actor: EventActor,
  derivedFrom?: DerivedFrom,
  opts: CreateOptions = {},
): Promise<EntryRow> {
  const [outcome] = await createEntries(tx, [{ ...opts, given, actor, derivedFrom }]);
  if ('error' in outcome) throw outcome.error;
  return outcome.row;
}

/** Step 1: each draft as the rules of its trigger leave it (they change neither the date, the currency nor the amount). */
async function runRules(tx: Transaction, requests: CreateRequest[], outcomes: CreateOutcome[]): Promise<Ruled[]> {
  const ruled: Ruled[] = [];
  for (const [index, request] of requests.entries()) {
    const { given, trigger } = request;
    const carried = await carriedTags(tx, request);
    const rules = trigger
      ? await reactions().entriesBeforeCreate(tx, given.workspaceId, trigger, [newEntryFields(given)], {
          bankCounterparties: [request.bankCounterparty],
        })
      : undefined;
    const draft: EntryDraft = rules ? { ...given, ...rules.drafts[0] } : given;
    try {
      assertRuledWithinReach(given, draft, request.reaches);
      ruled.push({ request, index, draft, carried, ruled: rules });
    } catch (error) {
      outcomes[index] = { error };
    }
  }
  return ruled;
}

/** Step 2: one statement checks them all; each create that passes becomes the row its insert writes, with its events. */
async function rowsToWrite(tx: Transaction, ruled: Ruled[], outcomes: CreateOutcome[], now: Date): Promise<Write[]> {
  const verdicts = ruled.length
    ? await prepareMany(
        tx,
        ruled.map((r) => checksOf(r.request.given, r.draft, r.carried)),
      )
    : [];
  const writes: Write[] = [];
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
    const { derivedFrom, actor } = r.request;
    const link = derivedFrom ? { linkType: derivedFrom.linkType, originalEntryId: derivedFrom.original.id, ...derivedFrom.eventData } : {};
    // built in the caller's context: its events name its transport (via)
    const events = inContextOf(r.request)(() => createdChain(fields, actor, link, r.ruled?.events[0] ?? [], now));
    const entry = { row: expectedRow(fields, now), items: fields.items, transactions: fields.transactions, tagIds: fields.tagIds, events };
    // the outbound events go with the insert when the entry stays as inserted until they are written
    writes.push({ r, entry, published: !r.ruled?.changesAfterInsert, prepared });
  }
  return writes;
}

/** Step 4: the link, the original's event, the caps of CONTRACT §5. */
async function linkToOriginal(tx: Transaction, row: EntryRow, { linkType, original, eventData }: DerivedFrom, actor: EventActor) {
  await linkEntries(tx, original.workspace_id, linkType, original.id, row.id);
  const { kind, idKey } = LINK_EVENT[linkType];
  await recordEvent(tx, original, kind, { [idKey]: row.id, ...eventData }, actor);
  await assertCaps(tx, row.workspace_id, [row.id]);
}

/** Step 6 for one entry: its outbound events if the insert did not write them, its reviews by its own actor. */
async function owedTo(tx: Transaction, row: EntryRow, w: Write, derived: ReturnType<typeof derivedOf>): Promise<EntryRow> {
  if (w.published && !w.prepared.reviews_due) return row;
  const { actor } = w.r.request;
  const soFar = { published: w.published, reviewsDue: w.prepared.reviews_due, budgetsDue: false };
  return inContextOf(w.r.request)(async () => {
    const effects = await reactions().entriesCreated(tx, [row], actor, derived, soFar);
    return (await applyEffects(tx, effects, actor)) ? reloadRow(tx, row.id) : row;
  });
}

const inContextOf =
  (request: CreateRequest) =>
  <T>(fn: () => T): T =>
    request.inContext ? request.inContext(fn) : fn();
