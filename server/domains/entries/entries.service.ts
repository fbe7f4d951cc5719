import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../db/database.js';
import { badRequest, notFound } from '../../lib/errors.js';
import { creatorOf, scope, type Actor } from '../../lib/scope.js';
import type { CreateEntryInput, EntryObject, UpdateEntryInput } from '../../../shared/contracts/entries.js';
import { lockEntry, presentEntry } from './entry-rows.js';
import { byUser } from './audit-events.js';
import { createEntries, createEntryRow, type CreateRequest } from './core/create.js';
import { CommitGroup, type GroupPiece, type PieceOutcome } from '../../db/commit-group.js';
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

type CreateCall = { actor: Actor; input: CreateEntryInput };

/** One create in a transaction of its own. */
const createAlone = ({ actor, input }: CreateCall): Promise<EntryObject> =>
  transaction(async (tx) => {
    const project = await projectForActor(actor, input.projectId, tx);
    const row = await createEntryRow(tx, draftOf(actor, input, project.workspace_id), byUser(actor), undefined, {
      trigger: 'CREATE',
      reaches: reachOf(actor, project.workspace_id),
    });
    return presentEntry(row);
  });

const draftOf = (actor: Actor, input: CreateEntryInput, workspaceId: number) => ({ ...input, workspaceId, createdBy: creatorOf(actor) });
const reachOf = (actor: Actor, workspaceId: number) => (projectId: number) => scope.canSeeProjectObject(actor, workspaceId, projectId);

/** Several creates in one transaction (server/db/commit-group.ts): each its own 404, its own outcome, its own mark. */
async function createTogether(tx: Transaction, pieces: GroupPiece<CreateCall>[]): Promise<PieceOutcome<EntryObject>[]> {
  const outcomes: PieceOutcome<EntryObject>[] = new Array(pieces.length);
  const requests: (CreateRequest & { piece: number })[] = [];
  for (const [i, piece] of pieces.entries()) {
    const { actor, input } = piece.input;
    try {
      const project = await projectForActor(actor, input.projectId, tx);
      const given = draftOf(actor, input, project.workspace_id);
      const reaches = reachOf(actor, project.workspace_id);
      requests.push({ piece: i, given, actor: byUser(actor), trigger: 'CREATE', reaches, inContext: piece.inContext });
    } catch (error) {
      outcomes[i] = { error };
    }
  }
  const created = await createEntries(tx, requests);
  for (const [j, outcome] of created.entries()) {
    const i = requests[j].piece;
    if ('row' in outcome) {
      await pieces[i].markCommitted(tx);
      outcomes[i] = { value: presentEntry(outcome.row) };
    } else outcomes[i] = outcome;
  }
  return outcomes;
}

/**
 * Creates that arrive together, or while a group is being written, are written together, set-based, in one
 * transaction (server/db/commit-group.ts, core/create.ts: each keeps its own outcome). Two lanes: one
 * lane measured better in short runs but worse in a full one (0.24 against 0.25 of the constant mutation, and
 * the 100-rules pair at 0.65; issue 35's note). A create's transaction takes only shared locks, so the lanes'
 * groups do not wait on each other; a group waits only on a period being closed or a row it references being deleted.
 */
export const createCommits = new CommitGroup<CreateCall, EntryObject>({
  name: 'entry_create',
  lanes: 2,
  maxItems: 16,
  alone: createAlone,
  together: createTogether,
});

export async function createEntry(actor: Actor, input: CreateEntryInput): Promise<EntryObject> {
  if (input.items?.length) {
    const sum = input.items.reduce((s, it) => s + it.amountCents, 0);
    if (sum !== input.amountCents) throw badRequest(`Line items sum to ${sum}, not to amountCents ${input.amountCents}`);
  }
  return createCommits.run({ actor, input });
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
