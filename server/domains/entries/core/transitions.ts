import { STATUSES_NEEDING_REASON, type EntryStatus } from '../../../../shared/contracts/entries.js';

/** Who moves a status: a person (directly or through a review), an accounting webhook, or a pull from the provider. */
export type TransitionSource = 'USER' | 'WEBHOOK' | 'SYNC';

/** CONTRACT §5: VOIDED and CANCELLED entries take no change. */
export const FROZEN_STATUSES: readonly EntryStatus[] = ['VOIDED', 'CANCELLED'];
/** CONTRACT §5 invariant: the statuses whose refunds and reimbursements count against their original. */
export const DEAD_STATUSES: readonly EntryStatus[] = ['VOIDED', 'CANCELLED', 'REJECTED'];
/** CONTRACT §11: the statuses reports count; a closed period's totals are the sum of its entries in them (§7). */
export const COUNTED_STATUSES: readonly EntryStatus[] = ['PENDING', 'UNDER_REVIEW', 'COMPLETED'];
/** CONTRACT §5: the `*` targets (the status change body's union says so too, shared/contracts/entries.ts). */
export const REASON_REQUIRED: readonly EntryStatus[] = STATUSES_NEEDING_REASON;

const WEBHOOK_TARGETS: readonly EntryStatus[] = ['COMPLETED', 'REJECTED', 'VOIDED'];

/**
 * The one status table: from → the statuses each source may move an entry to.
 * USER is CONTRACT §5's table (reviews move entries by it too). WEBHOOK is §10: an accounting
 * system approves, rejects or voids from any status but VOIDED and CANCELLED. SYNC is a void
 * pulled from the provider (§9 pull and KEEP_EXTERNAL).
 */
export const TRANSITIONS: Record<TransitionSource, Record<EntryStatus, readonly EntryStatus[]>> = {
  USER: {
    PENDING: ['UNDER_REVIEW', 'COMPLETED', 'REJECTED', 'CANCELLED', 'VOIDED'],
    UNDER_REVIEW: ['PENDING', 'COMPLETED', 'REJECTED', 'CANCELLED', 'VOIDED'],
    COMPLETED: ['VOIDED'],
    REJECTED: ['PENDING', 'VOIDED'],
    CANCELLED: [],
    VOIDED: [],
  },
  WEBHOOK: {
    PENDING: WEBHOOK_TARGETS,
    UNDER_REVIEW: WEBHOOK_TARGETS,
    COMPLETED: ['REJECTED', 'VOIDED'],
    REJECTED: ['COMPLETED', 'VOIDED'],
    CANCELLED: [],
    VOIDED: [],
  },
  SYNC: {
    PENDING: ['VOIDED'],
    UNDER_REVIEW: ['VOIDED'],
    COMPLETED: ['VOIDED'],
    REJECTED: ['VOIDED'],
    CANCELLED: [],
    VOIDED: [],
  },
};

export const canMove = (source: TransitionSource, from: EntryStatus, to: EntryStatus): boolean => TRANSITIONS[source][from].includes(to);
export const isCounted = (status: EntryStatus): boolean => COUNTED_STATUSES.includes(status);
export const isFrozen = (status: EntryStatus): boolean => FROZEN_STATUSES.includes(status);
