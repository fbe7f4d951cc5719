import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../db/database.js';
import { badRequest, notFound } from '../../lib/errors.js';
import { creatorOf, scope, type Actor } from '../../lib/scope.js';
import type { CreateEntryInput, EntryObject, UpdateEntryInput } from '../../../shared/contracts/entries.js';
import { lockEntry, presentEntry } from './entry-rows.js';
import { byUser } from './audit-events.js';
import { createEntryRow } from './core/create.js';
import { editEntryRow, setEntryTagsRow, setReconciledRow } from './core/change.js';

/**
 * The workspace of each project this process has looked up: a project never moves to another workspace
 * (nothing updates projects.workspace_id) and is never deleted, so a hit is always right — and the insert's
 * foreign key (project_id, workspace_id) checks the pair again. Bounded: emptied when full.
 */
const workspaceOfProject = new Map<number, number>();
const PROJECTS_KEPT = 50_000;

/** The project, or 404 when the actor cannot see it. */
async function projectForActor(actor: Actor, projectId: number, tx: Transaction) {
  let workspaceId = workspaceOfProject.get(projectId);
  if (workspaceId === undefined) {
    const [project] = await db().query<{ id: number; workspace_id: number }>('SELECT id, workspace_id FROM projects WHERE id = :id', {
      replacements: { id: projectId },
      type: QueryTypes.SELECT,
      transaction: tx,
    });
    if (project) {
      if (workspaceOfProject.size >= PROJECTS_KEPT) workspaceOfProject.clear();
      workspaceOfProject.set(projectId, (workspaceId = project.workspace_id));
    }
  }
  if (workspaceId === undefined || !scope.canSeeProjectObject(actor, workspaceId, projectId)) throw notFound('Project');
  return { id: projectId, workspace_id: workspaceId };
}

export async function createEntry(actor: Actor, input: CreateEntryInput): Promise<EntryObject> {
  if (input.items?.length) {
    const sum = input.items.reduce((s, it) => s + it.amountCents, 0);
    if (sum !== input.amountCents) throw badRequest(`Line items sum to ${sum}, not to amountCents ${input.amountCents}`);
  }
  return transaction(async (tx) => {
    const project = await projectForActor(actor, input.projectId, tx);
    const row = await createEntryRow(
      tx,
      { ...input, workspaceId: project.workspace_id, createdBy: creatorOf(actor) },
      byUser(actor),
      undefined,
      { trigger: 'CREATE', reaches: (projectId) => scope.canSeeProjectObject(actor, project.workspace_id, projectId) },
    );
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
