import { forgetSessionsOnAuthWrites } from './auth/index.js';
import { entryEvents, wireReactions } from './entries/index.js';
import { entryChangeReactions, reviewReactions } from './accounting/index.js';
import { bankingReactions } from './banking/index.js';
import { ruleReactions } from './rules/index.js';
import { valuate, valuationSql } from './fx/index.js';
import { budgetReactions } from './budgets/index.js';

/**
 * Every reaction of another domain to a change the ledger core makes, in one place (DESIGN §2a).
 * The core calls the members of EntryReactions where the change happens, inside its transaction;
 * this file says who answers. A reaction that changes an entry does not write it: it returns effects
 * (events to record, entries to move UNDER_REVIEW, outbound events) that the core applies. Called at start-up by the app (a second call changes nothing).
 */
export function wireDomainReactions(): void {
  // auth: the session cache forgets a user, session or membership this process writes
  forgetSessionsOnAuthWrites();
  wireReactions({
    valueEntries(tx, workspaceId, items) {
      // fx: the rate of each entry's currency on its date and amountBaseCents (CONTRACT §17)
      return valuate(tx, workspaceId, items);
    },
    async entriesBeforeCreate(tx, workspaceId, trigger, drafts, context) {
      // rules (CONTRACT §16): the drafts as the workspace's rules for the trigger leave them; RULE_APPLIED once inserted
      return ruleReactions.prepareNewEntries(tx, workspaceId, trigger, drafts, context);
    },
    async entriesCreated(tx, created, actor, derived, soFar = {}) {
      // webhooks: entry.created (entry.refunded / reimbursed / corrected for a derived entry), as inserted
      // (unless the insert wrote them already: createdOutbox)
      if (!soFar.published) await entryEvents.created(tx, created, derived);
      // budgets: budget.exceeded for each budget line and period the new entries took past its budget (CONTRACT §25);
      // skipped when the create found no budget in the workspace (newEntrySql.budgetsDue)
      if (soFar.budgetsDue !== false) await budgetReactions.afterEntriesChanged(tx, created);
      // accounting/reviews: a QUEUED review for each connection that requires one (entry → UNDER_REVIEW);
      // skipped when the create found no such connection (newEntrySql.reviewsDue)
      if (soFar.reviewsDue === false) return [];
      return reviewReactions.queueForNewEntries(tx, created);
    },
    newEntrySql: {
      // fx: the new entry's valuation (CONTRACT §17), in the create's first statement
      valuation: valuationSql,
      // accounting/reviews: whether queueForNewEntries would queue it (the connections it joins)
      reviewsDue: reviewReactions.dueSql,
      // budgets: whether afterEntriesChanged has any budget line to check
      budgetsDue: budgetReactions.dueSql,
    },
    createdOutbox(tx, created, derived) {
      // webhooks: the events of entryEvents.created, written by the insert of the entry itself
      return entryEvents.createdOutbox(tx, created, derived);
    },
    async entryEdited(tx, before, after, actor) {
      // webhooks: entry.updated
      await entryEvents.updated(tx, after);
      // budgets: budget.exceeded when the edit took a line past its budget
      await budgetReactions.afterEntriesChanged(tx, [after]);
      // accounting: a CHANGES_REQUESTED review goes back in the queue (a PENDING entry moves UNDER_REVIEW),
      // and SYNCED copies become STALE
      return entryChangeReactions.afterEntryEdited(tx, after, actor);
    },
    async entryStatusChanged(tx, before, after, actor) {
      // webhooks: entry.voided or entry.status_changed
      await entryEvents.statusChanged(tx, before, after);
      // budgets: budget.exceeded when the entry counts again (e.g. REJECTED → PENDING) and takes a line past its budget
      await budgetReactions.afterEntriesChanged(tx, [after]);
      // accounting: open reviews of a voided or cancelled entry are CANCELLED, and a void makes SYNCED copies
      // STALE (a push then voids them externally)
      if (after.entry_status === 'VOIDED' || after.entry_status === 'CANCELLED')
        return entryChangeReactions.afterEntryClosed(tx, after, actor);
      return [];
    },
    bankMatchOf(tx, row) {
      // banking: the match holding the entry, and its entries (CONTRACT §14)
      return bankingReactions.matchOf(tx, row);
    },
    releaseBankMatch(tx, workspaceId, matchId) {
      // banking: the match's lines UNMATCHED, the match gone (the core unreconciles its entries: CONTRACT §14)
      return bankingReactions.releaseMatch(tx, workspaceId, matchId);
    },
    async entryTagsChanged(tx, before, after) {
      // webhooks: entry.updated
      await entryEvents.updated(tx, after);
    },
    async entriesReconciled(tx, changed) {
      // webhooks: entry.reconciled / entry.unreconciled
      await entryEvents.reconciled(tx, changed);
    },
  });
}
