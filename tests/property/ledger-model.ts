/**
 * A small model of the ledger rules, written from CONTRACT §5 (entries) and §7 (periods) —
 * not from the implementation. Every `decide*` function answers what the service must do
 * with a request: refuse it (status, code and a label saying which rule refused it), or
 * accept it (and then `apply*` changes the model the way the service must change).
 */

export const STATUSES = ['PENDING', 'UNDER_REVIEW', 'COMPLETED', 'REJECTED', 'CANCELLED', 'VOIDED'] as const;
export type Status = (typeof STATUSES)[number];
export type EntryType = 'INCOME' | 'EXPENSE';
export type LinkType = 'REFUND' | 'REIMBURSEMENT' | 'CORRECTION';

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
/** `*` in the table: a reason is required (else 400, whatever the from-state). */
const REASON_REQUIRED: readonly Status[] = ['REJECTED', 'CANCELLED', 'VOIDED'];
/** Void, edit and correct: 409 on VOIDED or CANCELLED. */
const FROZEN: readonly Status[] = ['VOIDED', 'CANCELLED'];
/** Refund: 409 when the original is VOIDED, REJECTED or CANCELLED. */
const NOT_REFUNDABLE: readonly Status[] = ['VOIDED', 'REJECTED', 'CANCELLED'];

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
  /** audit events the entry must have (ENTRY_CREATED, ENTRY_UPDATED, STATUS_CHANGED, VOIDED, *_CREATED) */
  events: number;
};
export type ModelLink = { type: LinkType; original: number; derived: number };
export type ModelPeriod = { start: string; end: string; closed: boolean };

export type Model = { entries: ModelEntry[]; links: ModelLink[]; periods: ModelPeriod[] };

export type Refusal = { status: 400 | 409; code: 'BAD_REQUEST' | 'CONFLICT'; rule: string };
const badRequest = (rule: string): Refusal => ({ status: 400, code: 'BAD_REQUEST', rule });
const conflict = (rule: string): Refusal => ({ status: 409, code: 'CONFLICT', rule });

export function emptyModel(periods: { start: string; end: string }[]): Model {
  return { entries: [], links: [], periods: periods.map((p) => ({ ...p, closed: false })) };
}

/** CONTRACT §7: a date is in a closed period when some CLOSED period contains it, bounds inclusive. */
export function inClosedPeriod(m: Model, date: string): boolean {
  return m.periods.some((p) => p.closed && p.start <= date && date <= p.end);
}

/** What non-voided derived entries of the given link types add up to (their current amounts). */
export function derivedTotal(m: Model, original: number, types: readonly LinkType[]): number {
  return m.links
    .filter((l) => l.original === original && types.includes(l.type) && m.entries[l.derived].status !== 'VOIDED')
    .reduce((sum, l) => sum + m.entries[l.derived].amount, 0);
}

/** Room left for new refunds (or reimbursements) of `original`. */
export function remaining(m: Model, original: number, type: 'REFUND' | 'REIMBURSEMENT'): number {
  return m.entries[original].amount - derivedTotal(m, original, [type]);
}

/** The link that makes `derived` a refund or reimbursement of some original, if any. */
function amountLinkOf(m: Model, derived: number): ModelLink | undefined {
  return m.links.find((l) => l.derived === derived && l.type !== 'CORRECTION');
}

// --------------------------------------------------------------------------------------------
// Create, edit
// --------------------------------------------------------------------------------------------

export type CreateInput = { type: EntryType; amount: number; date: string; description: string; from: number; to: number };

export function decideCreate(m: Model, c: CreateInput): Refusal | null {
  if (inClosedPeriod(m, c.date)) return conflict('create: date in a closed period');
  return null;
}

export function applyCreate(m: Model, c: CreateInput): number {
  m.entries.push({ ...c, status: 'PENDING', statusReason: null, events: 1 });
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

export function decideEdit(m: Model, i: number, c: EditInput): Refusal | null {
  const e = m.entries[i];
  if (FROZEN.includes(e.status)) return conflict(`edit: entry is ${e.status}`);
  if (inClosedPeriod(m, e.date)) return conflict('edit: current date in a closed period');
  if (c.date !== undefined && inClosedPeriod(m, c.date)) return conflict('edit: new date in a closed period');
  if (c.amount !== undefined && c.amount !== e.amount) {
    if (c.amount < derivedTotal(m, i, ['REFUND', 'REIMBURSEMENT'])) return conflict('edit: amount below refunded + reimbursed');
    // "total reimbursed never above the original amount" (and refunds can never together exceed it):
    // a refund or reimbursement entry may not grow beyond what its original has left.
    const link = amountLinkOf(m, i);
    if (link && e.status !== 'VOIDED' && c.amount - e.amount > remaining(m, link.original, link.type as 'REFUND' | 'REIMBURSEMENT')) {
      return conflict(`edit: ${link.type.toLowerCase()} would exceed its original`);
    }
  }
  return null;
}

export function applyEdit(m: Model, i: number, c: EditInput): void {
  const e = m.entries[i];
  if (editChanges(m, i, c).length > 0) e.events += 1;
  if (c.amount !== undefined) e.amount = c.amount;
  if (c.date !== undefined) e.date = c.date;
  if (c.description !== undefined) e.description = c.description;
}

// --------------------------------------------------------------------------------------------
// Status, void
// --------------------------------------------------------------------------------------------

export function decideStatus(m: Model, i: number, to: Status, reason: string | undefined): Refusal | null {
  const e = m.entries[i];
  if (REASON_REQUIRED.includes(to) && reason === undefined) return badRequest(`status: ${to} needs a reason`);
  if (!ALLOWED[e.status].includes(to)) return conflict(`status: ${e.status} → ${to} not in the table`);
  // "A transition to VOIDED follows the void rules"
  if (to === 'VOIDED' && inClosedPeriod(m, e.date)) return conflict('status → VOIDED: date in a closed period');
  return null;
}

export function applyStatus(m: Model, i: number, to: Status, reason: string | undefined): void {
  const e = m.entries[i];
  e.status = to;
  e.statusReason = reason ?? null;
  e.events += 1;
}

export function decideVoid(m: Model, i: number): Refusal | null {
  const e = m.entries[i];
  if (FROZEN.includes(e.status)) return conflict(`void: entry is ${e.status}`);
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

export function decideRefund(m: Model, i: number, c: DeriveInput): Refusal | null {
  const e = m.entries[i];
  if (NOT_REFUNDABLE.includes(e.status)) return conflict(`refund: original is ${e.status}`);
  if (c.amount > remaining(m, i, 'REFUND')) return conflict('refund: above what remains refundable');
  if (inClosedPeriod(m, c.date)) return conflict('refund: its date in a closed period');
  return null;
}

/** Returns the new entry's index; voids the original when the refunds reach its amount (unless its date is closed). */
export function applyRefund(m: Model, i: number, c: DeriveInput): number {
  const original = m.entries[i];
  const derived = applyCreate(m, {
    type: opposite(original.type),
    amount: c.amount,
    date: c.date,
    description: c.description,
    from: original.to,
    to: original.from,
  });
  m.links.push({ type: 'REFUND', original: i, derived });
  original.events += 1; // REFUND_CREATED
  if (derivedTotal(m, i, ['REFUND']) === original.amount && !inClosedPeriod(m, original.date)) {
    applyStatus(m, i, 'VOIDED', 'Fully refunded');
  }
  return derived;
}

export type ReimburseInput = DeriveInput & { entryType?: EntryType; from: number; to: number };

/**
 * The contract names: only EXPENSE originals, total never above the original, date not closed.
 * It is silent on the original's status; decided here as for refunds (a VOIDED, REJECTED or
 * CANCELLED expense is not one that is paid back): 409.
 */
export function decideReimburse(m: Model, i: number, c: ReimburseInput): Refusal | null {
  const e = m.entries[i];
  if (e.type !== 'EXPENSE') return conflict('reimburse: original is not an EXPENSE');
  if (NOT_REFUNDABLE.includes(e.status)) return conflict(`reimburse: original is ${e.status}`);
  if (c.amount > remaining(m, i, 'REIMBURSEMENT')) return conflict('reimburse: above what remains reimbursable');
  if (inClosedPeriod(m, c.date)) return conflict('reimburse: its date in a closed period');
  return null;
}

export function applyReimburse(m: Model, i: number, c: ReimburseInput): number {
  const derived = applyCreate(m, {
    type: c.entryType ?? 'INCOME',
    amount: c.amount,
    date: c.date,
    description: c.description,
    from: c.from,
    to: c.to,
  });
  m.links.push({ type: 'REIMBURSEMENT', original: i, derived });
  m.entries[i].events += 1; // REIMBURSEMENT_CREATED
  return derived;
}

export type CorrectInput = { reason: string; amount?: number; date?: string };

export function decideCorrect(m: Model, i: number, c: CorrectInput): Refusal | null {
  const e = m.entries[i];
  if (FROZEN.includes(e.status)) return conflict(`correct: original is ${e.status}`);
  if (inClosedPeriod(m, e.date)) return conflict('correct: original date in a closed period');
  if (c.date !== undefined && inClosedPeriod(m, c.date)) return conflict('correct: new date in a closed period');
  return null;
}

export function applyCorrect(m: Model, i: number, c: CorrectInput): number {
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
  });
  m.links.push({ type: 'CORRECTION', original: i, derived });
  return derived;
}

// --------------------------------------------------------------------------------------------
// Periods: close OPEN → CLOSED, reopen CLOSED → OPEN, else 409
// --------------------------------------------------------------------------------------------

export function decidePeriod(m: Model, p: number, close: boolean): Refusal | null {
  if (m.periods[p].closed === close) return conflict(close ? 'close: period already CLOSED' : 'reopen: period already OPEN');
  return null;
}

export function applyPeriod(m: Model, p: number, close: boolean): void {
  m.periods[p].closed = close;
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
