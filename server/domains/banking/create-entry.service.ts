import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../db/database.js';
import { badRequest, conflict } from '../../lib/errors.js';
import { requirePermission, creatorOf, scope, type Actor } from '../../lib/scope.js';
import type { CreateEntryFromLineInput } from '../../../shared/contracts/banking.js';
import type { EntryObject } from '../../../shared/contracts/entries.js';
import type { MatchObject } from '../../../shared/contracts/banking.js';
import { byUser, ledger, loadEntry, presentEntry } from '../entries/index.js';
import { assertActive, loadAccount } from './account-rows.js';
import { loadLine } from './line-rows.js';
import { loadMatch } from './match-rows.js';
import { writeMatch } from './matches.service.js';

/** Without partyId: the workspace party whose name equals the line's counterparty, ignoring case (lowest id), else none. */
async function partyByName(tx: Transaction, workspaceId: number, name: string | null): Promise<number | null> {
  if (!name) return null;
  const [row] = await db().query<{ id: number }>(
    'SELECT id FROM parties WHERE workspace_id = :ws AND lower(name) = lower(:name) ORDER BY id LIMIT 1',
    { replacements: { ws: workspaceId, name }, type: QueryTypes.SELECT, transaction: tx },
  );
  return row?.id ?? null;
}

/** POST /bank-lines/{id}/create-entry: the entry made from the line and its match, in one transaction. */
export async function createEntryFromLine(
  actor: Actor,
  input: CreateEntryFromLineInput,
): Promise<{ entry: EntryObject; match: MatchObject }> {
  requirePermission(actor, 'entry.create');
  requirePermission(actor, 'entry.reconcile');
  return transaction(async (tx) => {
    const line = await loadLine(actor, input.id, tx, true);
    const account = await loadAccount(null, line.bank_account_id, tx, 'share');
    assertActive(account);
    if (line.status !== 'UNMATCHED') throw conflict(`Bank line ${line.id} is ${line.status}`);
    if (line.amount_cents === 0) throw conflict('A line of amount 0 cannot become an entry');
    const projectId = input.projectId ?? account.project_id;
    const [project] = await db().query<{ id: number }>('SELECT id FROM projects WHERE id = :id AND workspace_id = :ws', {
      replacements: { id: projectId, ws: account.workspace_id },
      type: QueryTypes.SELECT,
      transaction: tx,
    });
    if (!project || !scope.canSeeProjectObject(actor, account.workspace_id, projectId)) {
      throw badRequest(`Project ${projectId} is not a project of the account's workspace`);
    }
    const partyId = input.partyId ?? (await partyByName(tx, account.workspace_id, line.counterparty_name));
    const moneyIn = line.amount_cents > 0;
    const who = byUser(actor);
    // The one call site of entry creation from a bank line. The core checks the references (400)
    // and the closed period (409), runs the rules of §16 with trigger BANK (their counterparty is
    // the line's), inserts, records ENTRY_CREATED and runs the creation reactions.
    const row = await ledger.create(
      tx,
      {
        workspaceId: account.workspace_id,
        projectId,
        entrySourceId: account.entry_source_id,
        entryType: moneyIn ? 'INCOME' : 'EXPENSE',
        baseCurrency: account.currency.trim(),
        amountCents: Math.abs(line.amount_cents),
        fromPartyId: moneyIn ? partyId : account.party_id,
        toPartyId: moneyIn ? account.party_id : partyId,
        entryDate: line.booking_date,
        description: input.description ?? line.description,
        reference: line.reference,
        createdBy: creatorOf(actor),
        tagIds: input.tagIds,
      },
      who,
      undefined,
      {
        trigger: 'BANK',
        bankCounterparty: line.counterparty_name,
        reaches: (projectId) => scope.canSeeProjectObject(actor, account.workspace_id, projectId),
      },
    );
    const matchId = await writeMatch(tx, account, [Number(line.id)], [Number(row.id)], 'MANUAL', who);
    const entry = await loadEntry(null, row.id, tx);
    return { entry: presentEntry(entry), match: await loadMatch(null, matchId, tx) };
  });
}
