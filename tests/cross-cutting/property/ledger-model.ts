/**
 * A model of the ledger rules written from the contract text alone — CONTRACT §5 (entries,
 * the status table, void, refund, reimburse, correct, the caps and the invariant, tags), §4
 * (archived tags), §7 (closed periods, and "a closed period's totals never move") and §14 (bank
 * matches: candidates, balance, "a match always balances", dissolved by a void, a correction, or a
 * move to REJECTED or CANCELLED) — never from the implementation. Every `decide*`
 * function answers what the service must do with a request:
 *   - `null`: accept it (then `apply*` changes the model the way the service must change);
 *   - a `Refusal`: the status, code and a label naming the rule that refuses it;
 *   - a `Choice`: the contract allows more than one answer (two rules whose order it does not
 *     fix, or a question it leaves open). The test accepts any of them, follows the one the
 *     service took, and counts it under `why` so that the open questions stay visible.
 *
 * The caps (§5 "Correct" and "Invariant"), read as one rule: entries joined by CORRECTION links
 * form a chain whose *head* is the member not (yet) corrected. The live (not VOIDED, CANCELLED
 * or REJECTED) refunds linked to any member of a chain, each followed through its own
 * corrections, sum to at most the head's amount, and so do its reimbursements. That is
 * "the replacement of a refund takes its place in the original's total" (a refund's chain
 * counts by its live member) and "the replacement of an original keeps its live refunds and
 * reimbursements (they now count against the replacement)". Every command that changes an
 * amount or a status is a 409 when the state it would leave breaks that rule (`capsBroken`).
 */

export const STATUSES = ['PENDING', 'UNDER_REVIEW', 'COMPLETED', 'REJECTED', 'CANCELLED', 'VOIDED'] as const;
export type Status = (typeof STATUSES)[number];
export type EntryType = 'INCOME' | 'EXPENSE';
export type LinkType = 'REFUND' | 'REIMBURSEMENT' | 'CORRECTION';
export type CapType = 'REFUND' | 'REIMBURSEMENT';

/** CONTRACT §5 status table, row by row: from → the statuses it may move to. */
// prettier-ignore
const ALLOWED: Record<Status, readonly Status[]> = {
  PENDING:      ['UNDER_REVIEW', 'COMPLETED', 'REJECTED', 'CANCELLED', 'VOIDED'],
  UNDER_REVIEW: ['PENDING', 'COMPLETED', 'REJECTED', 'CANCELLED', 'VOIDED'],
  COMPLETED:    ['VOIDED'],
  REJECTED:     ['PENDING', 'VOIDED'],
  CANCELLED:    [],
  VOIDED:       [],
};
/** `*` in the table: a reason is required (else 400, whatever the from-state: §2 "visible from the request alone"). */
const REASON_REQUIRED: readonly Status[] = ['REJECTED', 'CANCELLED', 'VOIDED'];
/** Void, edit, correct, tags: 409 on VOIDED or CANCELLED. */
const FROZEN: readonly Status[] = ['VOIDED', 'CANCELLED'];
/** Refund: 409 when the original is VOIDED, REJECTED or CANCELLED. */
const NOT_REFUNDABLE: readonly Status[] = ['VOIDED', 'REJECTED', 'CANCELLED'];
/** The invariant counts refunds and reimbursements that are not VOIDED, CANCELLED or REJECTED. */
const NOT_LIVE: readonly Status[] = ['VOIDED', 'CANCELLED', 'REJECTED'];
/** §11: reports count PENDING, UNDER_REVIEW and COMPLETED; §7: a closed period's totals never move. */
const COUNTED: readonly Status[] = ['PENDING', 'UNDER_REVIEW', 'COMPLETED'];
/** §14: a candidate of a match is PENDING, UNDER_REVIEW or COMPLETED (and in no match). */
const MATCHABLE: readonly Status[] = ['PENDING', 'UNDER_REVIEW', 'COMPLETED'];
/** §14: voiding, correcting, or moving to REJECTED or CANCELLED by any route dissolves the entry's match. */
const DISSOLVES: readonly Status[] = ['VOIDED', 'REJECTED', 'CANCELLED'];

export type ModelEntry = {
  type: EntryType;
  amount: number;
  date: string;
  description: string;
  /** party slots of the run's world (0, 1, 2) */
  from: number;
  to: number;
  status: Status;
  statusReason: string | null;
  /** tag indices the entry carries, ascending */
  tags: number[];
  /** audit events the entry must have (ENTRY_CREATED, ENTRY_UPDATED, STATUS_CHANGED, VOIDED, *_CREATED, TAGS_CHANGED, RECONCILED, UNRECONCILED) */
  events: number;
  /** §14: the bank match it is in (index into `matches`), or null; a matched entry is reconciled */
  match: number | null;
  /** §9: its sync record on the run's connection (NONE: never pushed) */
  sync: SyncState;
};
export type SyncState = 'NONE' | 'SYNCED' | 'STALE' | 'CONFLICT';
/** §14: a bank line (signed amount: + money in, − money out), UNMATCHED or in a match. */
export type ModelLine = { amount: number; match: number | null };
/** §14: a match of lines and entries; `gone` once deleted or dissolved. */
export type ModelMatch = { lines: number[]; entries: number[]; gone: boolean };
export type ModelLink = { type: LinkType; original: number; derived: number };
export type ModelPeriod = { start: string; end: string; closed: boolean };
export type ModelTag = { name: string; archived: boolean };

export type Model = {
  /** §4: the workspace's base currency (every entry of a run is in it: it changes only while there are none) */
  base: string;
  /** §4: whether the run's bank account exists yet (created by the first match) */
  hasAccount: boolean;
  entries: ModelEntry[];
  links: ModelLink[];
  periods: ModelPeriod[];
  tags: ModelTag[];
  lines: ModelLine[];
  matches: ModelMatch[];
};

export type Refusal = { status: 400 | 404 | 409; code: 'BAD_REQUEST' | 'NOT_FOUND' | 'CONFLICT'; rule: string };
/** More than one answer is allowed by the contract; `null` among the options = accepted. */
export type Choice = { choices: (Refusal | null)[]; why: string };
export type Decision = Refusal | Choice | null;

const badRequest = (rule: string): Refusal => ({ status: 400, code: 'BAD_REQUEST', rule });
const conflict = (rule: string): Refusal => ({ status: 409, code: 'CONFLICT', rule });
const notFound = (rule: string): Refusal => ({ status: 404, code: 'NOT_FOUND', rule });
export const isChoice = (d: Decision): d is Choice => d !== null && 'choices' in d;

/** Two refusals the contract gives no order between: either may come first. */
function eitherOf(a: Refusal | null, b: Refusal | null, why: string): Decision {
  if (a && b && a.status !== b.status) return { choices: [a, b], why };
  return a ?? b;
}

export function emptyModel(periods: { start: string; end: string }[]): Model {
  return {
    base: 'USD',
    hasAccount: false,
    entries: [],
    links: [],
    periods: periods.map((p) => ({ ...p, closed: false })),
    tags: [],
    lines: [],
    matches: [],
  };
}

export function cloneModel(m: Model): Model {
  return {
    base: m.base,
    hasAccount: m.hasAccount,
    entries: m.entries.map((e) => ({ ...e, tags: [...e.tags] })),
    links: m.links.map((l) => ({ ...l })),
    periods: m.periods.map((p) => ({ ...p })),
    tags: m.tags.map((t) => ({ ...t })),
    lines: m.lines.map((l) => ({ ...l })),
    matches: m.matches.map((x) => ({ ...x, lines: [...x.lines], entries: [...x.entries] })),
  };
}

/** CONTRACT §7: a date is in a closed period when some CLOSED period contains it, bounds inclusive. */
export function inClosedPeriod(m: Model, date: string): boolean {
  return m.periods.some((p) => p.closed && p.start <= date && date <= p.end);
}

export const isLive = (e: ModelEntry): boolean => !NOT_LIVE.includes(e.status);
const isFrozen = (e: ModelEntry): boolean => FROZEN.includes(e.status);

// --------------------------------------------------------------------------------------------
// The caps (CONTRACT §5 "Correct" and "Invariant")
// --------------------------------------------------------------------------------------------

/** Every entry joined to `i` by CORRECTION links, either way (its correction chain, `i` included). */
export function correctionChain(m: Model, i: number): number[] {
  const seen = new Set([i]);
  const todo = [i];
  while (todo.length > 0) {
    const x = todo.pop()!;
    for (const l of m.links) {
      if (l.type !== 'CORRECTION') continue;
      const next = l.original === x ? l.derived : l.derived === x ? l.original : undefined;
      if (next !== undefined && !seen.has(next)) {
        seen.add(next);
        todo.push(next);
      }
    }
  }
  return [...seen].sort((a, b) => a - b);
}

/** The member of `i`'s chain that has not been corrected: the entry whose amount bounds the chain's caps. */
export function headOf(m: Model, i: number): number {
  const heads = correctionChain(m, i).filter((x) => !m.links.some((l) => l.type === 'CORRECTION' && l.original === x));
  if (heads.length !== 1) throw new Error(`model: chain of #${i} has ${heads.length} heads`);
  return heads[0];
}

/** The entries that count in the `type` cap of `i`'s chain: derived from any member, followed through their corrections. */
export function capMembers(m: Model, i: number, type: CapType): number[] {
  const chain = correctionChain(m, i);
  const out = new Set<number>();
  for (const l of m.links) if (l.type === type && chain.includes(l.original)) for (const d of correctionChain(m, l.derived)) out.add(d);
  return [...out].sort((a, b) => a - b);
}

/** What the live members of the `type` cap of `i`'s chain add up to. */
export function capUse(m: Model, i: number, type: CapType): number {
  return capMembers(m, i, type)
    .filter((d) => isLive(m.entries[d]))
    .reduce((sum, d) => sum + m.entries[d].amount, 0);
}

/** Room left in the `type` cap of `i`'s chain (may be negative only in a broken state). */
export function capRoom(m: Model, i: number, type: CapType): number {
  return m.entries[headOf(m, i)].amount - capUse(m, i, type);
}

/** The first cap the state breaks (checked for every chain head and both kinds), or null. */
export function capsBroken(m: Model): string | null {
  for (let i = 0; i < m.entries.length; i++) {
    if (m.links.some((l) => l.type === 'CORRECTION' && l.original === i)) continue; // not a head
    for (const type of ['REFUND', 'REIMBURSEMENT'] as const) {
      const use = capUse(m, i, type);
      if (use > m.entries[i].amount) return `live ${type.toLowerCase()}s of #${i}'s chain ${use} > its amount ${m.entries[i].amount}`;
    }
  }
  return null;
}

/** 409 when `change` (run on a copy) leaves a broken cap. */
function capsAfter(m: Model, rule: string, change: (copy: Model) => void): Refusal | null {
  const copy = cloneModel(m);
  change(copy);
  return capsBroken(copy) ? conflict(rule) : null;
}

/** The link that makes `derived` a refund or reimbursement of some original, if any. */
export function amountLinkOf(m: Model, derived: number): ModelLink | undefined {
  return m.links.find((l) => l.derived === derived && l.type !== 'CORRECTION');
}

// --------------------------------------------------------------------------------------------
// Create, edit
// --------------------------------------------------------------------------------------------

export type CreateInput = {
  type: EntryType;
  amount: number;
  date: string;
  description: string;
  from: number;
  to: number;
  tags: number[];
};

/** §4: an archived tag cannot be added to entries (400); §5: a date in a closed period (409). Their order is not fixed. */
export function decideCreate(m: Model, c: CreateInput): Decision {
  const archived = c.tags.some((t) => m.tags[t].archived) ? badRequest('create: an archived tag cannot be added') : null;
  const closed = inClosedPeriod(m, c.date) ? conflict('create: date in a closed period') : null;
  return eitherOf(archived, closed, 'create: archived tag (400) and closed period (409) together, order not fixed');
}

export function applyCreate(m: Model, c: CreateInput): number {
  m.entries.push({
    ...c,
    tags: [...new Set(c.tags)].sort((a, b) => a - b),
    status: 'PENDING',
    statusReason: null,
    events: 1,
    match: null,
    sync: 'NONE',
  });
  return m.entries.length - 1;
}

export type EditInput = { amount?: number; date?: string; description?: string };

export function editChanges(m: Model, i: number, c: EditInput): (keyof EditInput)[] {
  const e = m.entries[i];
  const changed: (keyof EditInput)[] = [];
  if (c.amount !== undefined && c.amount !== e.amount) changed.push('amount');
  if (c.date !== undefined && c.date !== e.date) changed.push('date');
  if (c.description !== undefined && c.description !== e.description) changed.push('description');
  return changed;
}

/**
 * §5 edit: 409 when VOIDED or CANCELLED, when the current or new date is closed, when the
 * amount would fall below what has already been refunded or reimbursed (read as the two
 * together, each followed through corrections), and — "the same caps hold for every other way
 * an amount changes: edits" — when the new amount breaks a cap (a refund or reimbursement that
 * grows past what its original's chain has left).
 */
export function decideEdit(m: Model, i: number, c: EditInput): Decision {
  const e = m.entries[i];
  if (isFrozen(e)) return conflict(`edit: entry is ${e.status}`);
  if (inClosedPeriod(m, e.date)) return conflict('edit: current date in a closed period');
  if (c.date !== undefined && inClosedPeriod(m, c.date)) return conflict('edit: new date in a closed period');
  if (c.amount !== undefined && c.amount !== e.amount) {
    // §14 "A match always balances: an edit of a matched entry's amountCents … is a 409 (delete the match first)"
    if (e.match !== null) return conflict('edit: the amount of an entry in a bank match');
    if (c.amount < capUse(m, i, 'REFUND') + capUse(m, i, 'REIMBURSEMENT')) return conflict('edit: amount below refunded + reimbursed');
    const amount = c.amount;
    return capsAfter(m, 'edit: the new amount breaks a cap', (copy) => (copy.entries[i].amount = amount));
  }
  return null;
}

export function applyEdit(m: Model, i: number, c: EditInput): void {
  const e = m.entries[i];
  if (editChanges(m, i, c).length > 0) {
    e.events += 1;
    // §9: "local edit, void, correction: SYNCED → STALE"
    if (e.sync === 'SYNCED') e.sync = 'STALE';
  }
  if (c.amount !== undefined) e.amount = c.amount;
  if (c.date !== undefined) e.date = c.date;
  if (c.description !== undefined) e.description = c.description;
}

// --------------------------------------------------------------------------------------------
// Status, void
// --------------------------------------------------------------------------------------------

/**
 * §5 status: 400 without a reason for a `*` target; 409 for a transition not in the table;
 * a transition to VOIDED follows the void rules (closed period: 409); and a refund or
 * reimbursement that comes back to life (REJECTED → PENDING) is a 409 when it would break a cap.
 */
export function decideStatus(m: Model, i: number, to: Status, reason: string | undefined): Decision {
  const e = m.entries[i];
  if (REASON_REQUIRED.includes(to) && reason === undefined) return badRequest(`status: ${to} needs a reason`);
  if (!ALLOWED[e.status].includes(to)) return conflict(`status: ${e.status} → ${to} not in the table`);
  if (to === 'VOIDED' && inClosedPeriod(m, e.date)) return conflict('status → VOIDED: date in a closed period');
  // §7: "any status change of an entry dated in it that moves the entry into or out of the counted statuses … is a 409"
  if (COUNTED.includes(e.status) !== COUNTED.includes(to) && inClosedPeriod(m, e.date))
    return conflict('status: into or out of the counted statuses, dated in a closed period');
  return capsAfter(m, `status: ${e.status} → ${to} would break a cap`, (copy) => (copy.entries[i].status = to));
}

export function applyStatus(m: Model, i: number, to: Status, reason: string | undefined): void {
  const e = m.entries[i];
  e.status = to;
  e.statusReason = reason ?? null;
  e.events += 1;
  if (to === 'VOIDED' && e.sync === 'SYNCED') e.sync = 'STALE';
  // §14: its match is dissolved in the same transaction (lines UNMATCHED, UNRECONCILED events)
  if (DISSOLVES.includes(to) && e.match !== null) applyUnmatch(m, e.match);
}

// --------------------------------------------------------------------------------------------
// Bank matches (§14)
// --------------------------------------------------------------------------------------------

export const signedAmount = (e: ModelEntry): number => (e.type === 'INCOME' ? e.amount : -e.amount);

export function applyImportLine(m: Model, amount: number): number {
  m.lines.push({ amount, match: null });
  return m.lines.length - 1;
}

/**
 * `POST /reconciliation/matches {lineIds, entryIds}`: the lines UNMATCHED (409), the entries candidates except for
 * the date window — PENDING, UNDER_REVIEW or COMPLETED, in no match, INCOME for money in and EXPENSE for money out
 * (409) — and the lines' sum equal to the entries' signed sum (409). Reconciling is allowed in closed periods.
 */
export function decideMatch(m: Model, lines: number[], entries: number[]): Decision {
  if (lines.some((l) => m.lines[l].match !== null)) return conflict('match: a line is not UNMATCHED');
  for (const i of entries) {
    const e = m.entries[i];
    if (!MATCHABLE.includes(e.status)) return conflict(`match: an entry is ${e.status}`);
    if (e.match !== null) return conflict('match: an entry is already in a match');
  }
  const allIn = lines.every((l) => m.lines[l].amount > 0);
  const allOut = lines.every((l) => m.lines[l].amount < 0);
  if (entries.some((i) => (allIn && m.entries[i].type !== 'INCOME') || (allOut && m.entries[i].type !== 'EXPENSE')))
    return conflict('match: an entry of the other type');
  const lineSum = lines.reduce((s, l) => s + m.lines[l].amount, 0);
  const entrySum = entries.reduce((s, i) => s + signedAmount(m.entries[i]), 0);
  if (lineSum !== entrySum) return conflict('match: the sums differ');
  return null;
}

/** The match: lines MATCHED, entries reconciled with a RECONCILED event each. Returns its index. */
export function applyMatch(m: Model, lines: number[], entries: number[]): number {
  const x = m.matches.push({ lines: [...lines], entries: [...entries], gone: false }) - 1;
  for (const l of lines) m.lines[l].match = x;
  for (const i of entries) {
    m.entries[i].match = x;
    m.entries[i].events += 1;
  }
  return x;
}

/** `DELETE /reconciliation/matches/{id}` of a match that is gone: 404; else accepted. */
export function decideUnmatch(m: Model, x: number): Decision {
  return m.matches[x].gone ? notFound('unmatch: the match is gone') : null;
}

/** Deleted or dissolved: lines UNMATCHED, entries unreconciled with an UNRECONCILED event each. */
export function applyUnmatch(m: Model, x: number): void {
  const match = m.matches[x];
  match.gone = true;
  for (const l of match.lines) m.lines[l].match = null;
  for (const i of match.entries) {
    m.entries[i].match = null;
    m.entries[i].events += 1;
  }
}

/** The invariant of §14, on the model: every standing match balances and holds only live entries. */
export function matchesBroken(m: Model): string | null {
  for (const [x, match] of m.matches.entries()) {
    if (match.gone) continue;
    const lines = match.lines.reduce((s, l) => s + m.lines[l].amount, 0);
    const entries = match.entries.reduce((s, i) => s + signedAmount(m.entries[i]), 0);
    if (lines !== entries) return `match #${x}: lines ${lines} ≠ entries ${entries}`;
    if (match.entries.some((i) => !MATCHABLE.includes(m.entries[i].status))) return `match #${x}: an entry is not live`;
  }
  return null;
}

export function decideVoid(m: Model, i: number): Decision {
  const e = m.entries[i];
  if (isFrozen(e)) return conflict(`void: entry is ${e.status}`);
  if (inClosedPeriod(m, e.date)) return conflict('void: date in a closed period');
  return null;
}

export function applyVoid(m: Model, i: number, reason: string): void {
  applyStatus(m, i, 'VOIDED', reason);
}

// --------------------------------------------------------------------------------------------
// Refund, reimburse, correct
// --------------------------------------------------------------------------------------------

const opposite = (t: EntryType): EntryType => (t === 'INCOME' ? 'EXPENSE' : 'INCOME');

export type DeriveInput = { amount: number; date: string; description: string };

/** §5 refund: 409 when the original is VOIDED, REJECTED or CANCELLED; above what remains (the cap); its date closed. */
export function decideRefund(m: Model, i: number, c: DeriveInput): Decision {
  const e = m.entries[i];
  if (NOT_REFUNDABLE.includes(e.status)) return conflict(`refund: original is ${e.status}`);
  if (c.amount > capRoom(m, i, 'REFUND')) return conflict('refund: above what remains refundable');
  if (inClosedPeriod(m, c.date)) return conflict('refund: its date in a closed period');
  return null;
}

/**
 * Returns the new entry's index. "When the refunds reach the original amount, the original
 * becomes VOIDED in the same transaction (`statusReason` "Fully refunded")" — the refunds that
 * count against it, followed through corrections — unless its date is in a closed period.
 * The new entry's tags are not named by the contract: `newTags` is what the service gave it
 * (the caller checks that it is one of the two natural answers, none or the original's).
 */
export function applyRefund(m: Model, i: number, c: DeriveInput, newTags: number[]): number {
  const original = m.entries[i];
  const derived = applyCreate(m, {
    type: opposite(original.type),
    amount: c.amount,
    date: c.date,
    description: c.description,
    from: original.to,
    to: original.from,
    tags: newTags,
  });
  m.links.push({ type: 'REFUND', original: i, derived });
  original.events += 1; // REFUND_CREATED
  if (capUse(m, i, 'REFUND') === original.amount && !inClosedPeriod(m, original.date)) {
    applyStatus(m, i, 'VOIDED', 'Fully refunded');
  }
  return derived;
}

export type ReimburseInput = DeriveInput & { entryType?: EntryType; from: number; to: number };

/**
 * §5 reimburse: only EXPENSE originals; total never above the original amount (the cap); date
 * not closed. The contract is silent on the original's status; decided here as for refunds (a
 * VOIDED, REJECTED or CANCELLED expense is not one that is paid back): 409.
 */
export function decideReimburse(m: Model, i: number, c: ReimburseInput): Decision {
  const e = m.entries[i];
  if (e.type !== 'EXPENSE') return conflict('reimburse: original is not an EXPENSE');
  if (NOT_REFUNDABLE.includes(e.status)) return conflict(`reimburse: original is ${e.status}`);
  if (c.amount > capRoom(m, i, 'REIMBURSEMENT')) return conflict('reimburse: above what remains reimbursable');
  if (inClosedPeriod(m, c.date)) return conflict('reimburse: its date in a closed period');
  return null;
}

export function applyReimburse(m: Model, i: number, c: ReimburseInput, newTags: number[]): number {
  const derived = applyCreate(m, {
    type: c.entryType ?? 'INCOME',
    amount: c.amount,
    date: c.date,
    description: c.description,
    from: c.from,
    to: c.to,
    tags: newTags,
  });
  m.links.push({ type: 'REIMBURSEMENT', original: i, derived });
  m.entries[i].events += 1; // REIMBURSEMENT_CREATED
  return derived;
}

export type CorrectInput = { reason: string; amount?: number; date?: string };

/** The replacement a correction creates, linked CORRECTION; the original VOIDED with the reason. */
function correctInto(m: Model, i: number, c: CorrectInput, newTags: number[]): number {
  const original = m.entries[i];
  applyStatus(m, i, 'VOIDED', c.reason);
  original.events += 1; // CORRECTION_CREATED (after VOIDED)
  const derived = applyCreate(m, {
    type: original.type,
    amount: c.amount ?? original.amount,
    date: c.date ?? original.date,
    description: original.description,
    from: original.from,
    to: original.to,
    tags: newTags,
  });
  m.links.push({ type: 'CORRECTION', original: i, derived });
  return derived;
}

/**
 * §5 correct: 409 on VOIDED or CANCELLED; closed-period rules on both dates (the original's and
 * the replacement's); and the caps: the replacement of a refund (or reimbursement) takes its
 * place in the original's total (409 above it), the replacement of an original keeps its live
 * refunds and reimbursements (409 when its amount would fall below them).
 *
 * "Below them": below each kind is a broken cap (409 for sure). Below the two *together* but
 * above each is an open question — the edit rule reads "what has been refunded or reimbursed"
 * and the invariant treats the kinds apart — so the model allows both answers there.
 */
export function decideCorrect(m: Model, i: number, c: CorrectInput): Decision {
  const e = m.entries[i];
  if (isFrozen(e)) return conflict(`correct: original is ${e.status}`);
  if (inClosedPeriod(m, e.date)) return conflict('correct: original date in a closed period');
  if (c.date !== undefined && inClosedPeriod(m, c.date)) return conflict('correct: new date in a closed period');
  const broken = capsAfter(m, 'correct: the replacement breaks a cap', (copy) => correctInto(copy, i, c, []));
  if (broken) return broken;
  const amount = c.amount ?? e.amount;
  if (amount < capUse(m, i, 'REFUND') + capUse(m, i, 'REIMBURSEMENT')) {
    return {
      choices: [conflict('correct: replacement below refunds + reimbursements together'), null],
      why: 'correct: replacement below refunds + reimbursements together, above each (sum or each kind?)',
    };
  }
  return null;
}

/** `newTags`: the replacement's tags, which the contract does not name (none, or the original's). */
export function applyCorrect(m: Model, i: number, c: CorrectInput, newTags: number[]): number {
  return correctInto(m, i, c, newTags);
}

// --------------------------------------------------------------------------------------------
// Tags (§4: create, delete = archive; §5: PUT /entries/{id}/tags)
// --------------------------------------------------------------------------------------------

/** §4: tag names unique per workspace (409) among usable tags: a deleted tag's name becomes free. */
export function decideCreateTag(m: Model, name: string): Decision {
  if (m.tags.some((t) => !t.archived && t.name === name)) return conflict('tag: name taken by a usable tag');
  return null;
}

export function applyCreateTag(m: Model, name: string): number {
  m.tags.push({ name, archived: false });
  return m.tags.length - 1;
}

/**
 * §4: deleting a tag archives it (200). Deleting an archived tag again: the contract is silent
 * (it is not absent — `includeArchived=true` lists it — nor is a second delete named a
 * conflict); 404, 409 or a 200 that changes nothing are all allowed.
 */
export function decideDeleteTag(m: Model, t: number): Decision {
  if (!m.tags[t].archived) return null;
  return {
    choices: [notFound('delete tag: already archived'), conflict('delete tag: already archived'), null],
    why: 'delete tag: already archived (contract silent)',
  };
}

export function applyDeleteTag(m: Model, t: number): void {
  m.tags[t].archived = true;
}

/**
 * §5 PUT tags: 409 on VOIDED or CANCELLED entries and on entries dated in a closed period;
 * §4: an archived tag cannot be added (400) and stays on the entries that carry it. A PUT that
 * names an archived tag the entry already carries does not add it; the contract does not say
 * whether naming it is then refused, so both answers are allowed there. The 400 and the 409 have
 * no order between them.
 */
export function decidePutTags(m: Model, i: number, tags: number[]): Decision {
  const e = m.entries[i];
  const frozen = isFrozen(e)
    ? conflict(`tags: entry is ${e.status}`)
    : inClosedPeriod(m, e.date)
      ? conflict('tags: entry dated in a closed period')
      : null;
  const adding = tags.filter((t) => m.tags[t].archived && !e.tags.includes(t));
  const keeping = tags.filter((t) => m.tags[t].archived && e.tags.includes(t));
  const archived = adding.length > 0 ? badRequest('tags: an archived tag cannot be added') : null;
  const decided = eitherOf(archived, frozen, 'tags: archived tag (400) on a frozen / closed entry (409), order not fixed');
  if (decided || keeping.length === 0) return decided;
  return {
    choices: [badRequest('tags: names an archived tag the entry already carries'), null],
    why: 'tags: PUT keeps an archived tag the entry carries (allowed, or 400?)',
  };
}

export function applyPutTags(m: Model, i: number, tags: number[]): void {
  const e = m.entries[i];
  const next = [...new Set(tags)].sort((a, b) => a - b);
  if (next.join() !== e.tags.join()) e.events += 1; // TAGS_CHANGED, only when the set changes
  e.tags = next;
}

// --------------------------------------------------------------------------------------------
// Periods: close OPEN → CLOSED, reopen CLOSED → OPEN, else 409
// --------------------------------------------------------------------------------------------

export function decidePeriod(m: Model, p: number, close: boolean): Decision {
  if (m.periods[p].closed === close) return conflict(close ? 'close: period already CLOSED' : 'reopen: period already OPEN');
  return null;
}

export function applyPeriod(m: Model, p: number, close: boolean): void {
  m.periods[p].closed = close;
}

// --------------------------------------------------------------------------------------------
// The workspace (§4): its base currency changes only while nothing is stated in it
// --------------------------------------------------------------------------------------------

/**
 * §4 `PATCH /workspaces/{id} {baseCurrency}`: a change is a 409 once the workspace has an entry, an FX rate or a bank
 * account (the runs write no rates); the same currency is no change (200).
 */
export function decideWorkspace(m: Model, base: string): Decision {
  if (base !== m.base && (m.entries.length > 0 || m.hasAccount)) return conflict('workspace: base currency with entries or a bank account');
  return null;
}

export function applyWorkspace(m: Model, base: string): void {
  m.base = base;
}

/**
 * §7 "a closed period's totals never move", §17 normalised: per CLOSED period, the income and expense of its counted
 * entries (bounds inclusive), stated in the workspace's base currency (every entry of a run is in it, at rate 1).
 */
export function closedTotals(m: Model): { period: number; income: number; expense: number; currency: string }[] {
  return m.periods.flatMap((p, period) => {
    if (!p.closed) return [];
    const counted = m.entries.filter((e) => COUNTED.includes(e.status) && p.start <= e.date && e.date <= p.end);
    const sum = (type: EntryType) => counted.filter((e) => e.type === type).reduce((s, e) => s + e.amount, 0);
    return [{ period, income: sum('INCOME'), expense: sum('EXPENSE'), currency: m.base }];
  });
}

/** What `GET /entries/{id}/related` must list for entry `i`, ordered by the related entry's index. */
export function relatedOf(m: Model, i: number): { type: LinkType; role: 'ORIGINAL' | 'DERIVED'; entry: number }[] {
  return m.links
    .flatMap((l) => [
      ...(l.original === i ? [{ type: l.type, role: 'DERIVED' as const, entry: l.derived }] : []),
      ...(l.derived === i ? [{ type: l.type, role: 'ORIGINAL' as const, entry: l.original }] : []),
    ])
    .sort((a, b) => a.entry - b.entry);
}

// --------------------------------------------------------------------------------------------
// Sync with an accounting system (§9), one connection (MANUAL_PUSH, no review, no completeness)
// --------------------------------------------------------------------------------------------

/**
 * §9 push preconditions that these runs can meet (409, nothing changes): entry VOIDED and never synced; entry date in
 * a closed period. A SYNCED entry pushes as a no-op; NONE and STALE push → SYNCED.
 */
export function decidePush(m: Model, i: number): Decision {
  const e = m.entries[i];
  if (e.status === 'VOIDED' && e.sync === 'NONE') return conflict('push: VOIDED and never synced');
  if (inClosedPeriod(m, e.date)) return conflict('push: entry date in a closed period');
  return null;
}

export function applyPush(m: Model, i: number): void {
  m.entries[i].sync = 'SYNCED';
}

/**
 * §9 pull of an external change of the amount of entry `i`'s record: SYNCED → the entry takes it as an edit (event
 * ENTRY_UPDATED, the record stays SYNCED) when the entry's rules take it — §5 edit rules and caps ("a pulled change
 * that would break a cap is not applied; the sync becomes CONFLICT"), §7 closed periods, §14 ("a sync pull that would
 * change them is a CONFLICT") — else CONFLICT; STALE → CONFLICT. Returns what the pull reports for it.
 */
export function decidePull(m: Model, i: number, amount: number): 'UPDATED' | 'CONFLICT' | 'UNCHANGED' {
  const e = m.entries[i];
  if (e.sync === 'STALE') return 'CONFLICT';
  if (amount === e.amount) return 'UNCHANGED';
  return decideEdit(m, i, { amount }) === null ? 'UPDATED' : 'CONFLICT';
}

export function applyPull(m: Model, i: number, amount: number, outcome: 'UPDATED' | 'CONFLICT' | 'UNCHANGED'): void {
  const e = m.entries[i];
  if (outcome === 'CONFLICT') e.sync = 'CONFLICT';
  if (outcome === 'UPDATED') {
    e.amount = amount;
    e.events += 1; // ENTRY_UPDATED, actor SYSTEM; its own connection's copy stays SYNCED
  }
}
