import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../db/database.js';
import { badRequest, notFound } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { CreateEntryInput, EntryObject, UpdateEntryInput } from '../../../shared/contracts/entries.js';
import { lockEntry, presentEntry } from './entry-rows.js';
import { byUser } from './events.js';
import { createEntryRow } from './core/create.js';
import { editEntryRow, setEntryTagsRow, setReconciledRow } from './core/change.js';

/** The project, or 404 when the actor cannot see it. */
async function projectForActor(actor: Actor, projectId: number, tx: Transaction) {
  const [project] = await db().query<{ id: number; workspace_id: number }>('SELECT id, workspace_id FROM projects WHERE id = :id', {
    replacements: { id: projectId },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  if (!project || !scope.canSeeProjectObject(actor, project.workspace_id, project.id)) throw notFound('Project');
  return project;
}

export async function createEntry(actor: Actor, input: CreateEntryInput): Promise<EntryObject> {
  if (input.items?.length) {
    const sum = input.items.reduce((s, it) => s + it.amountCents, 0);
    if (sum !== input.amountCents) throw badRequest(`Line items sum to ${sum}, not to amountCents ${input.amountCents}`);
  }
  return transaction(async (tx) => {
    const project = await projectForActor(actor, input.projectId, tx);
    const row = await createEntryRow(tx, { ...input, workspaceId: project.workspace_id, createdBy: actor.userId }, byUser(actor));
    return presentEntry(row);
  });
}

export async function updateEntry(actor: Actor, input: UpdateEntryInput): Promise<EntryObject> {
  return transaction(async (tx) => {
    const row = await lockEntry(actor, input.id, tx);
    const { id: _id, ...edit } = input;
    return presentEntry((await editEntryRow(tx, row, edit, byUser(actor))) ?? row);
  });
}

export async function replaceTags(actor: Actor, id: number, tagIds: number[]): Promise<EntryObject> {
  return transaction(async (tx) => {
    const row = await lockEntry(actor, id, tx);
    return presentEntry(await setEntryTagsRow(tx, row, tagIds, byUser(actor)));
  });
}

/** PATCH /entries/{id}/reconcile. An entry in a bank match is unreconciled by deleting the match (CONTRACT §14). */
export async function reconcileEntry(actor: Actor, id: number, isReconciled: boolean): Promise<EntryObject> {
  return transaction(async (tx) => {
    const row = await lockEntry(actor, id, tx);
    return presentEntry(await setReconciledRow(tx, row, isReconciled, byUser(actor)));
  });
}
