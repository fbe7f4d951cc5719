import { QueryTypes } from 'sequelize';
import { db, transaction, type Transaction } from '../../db/database.js';
import { clock } from '../../lib/clock.js';
import { badRequest, notFound } from '../../lib/errors.js';
import { creatorOf, scope, type Actor } from '../../lib/scope.js';
import type {
  CreateRecurringEntryInput,
  ListRecurringEntriesQuery,
  RecurringEntryObject,
  RecurringTemplate,
  RecurringTemplateInput,
  UpdateRecurringEntryInput,
} from '../../../shared/contracts/recurring.js';
import { nextDate, validateSchedule } from './schedule.js';
import { loadRecurring, presentRecurring, type RecurringRow } from './recurring-rows.js';
import { nextOccurrenceOf } from './occurrences.js';

/** The template as stored and shown: every field present, tags unique. */
const templateOf = (t: RecurringTemplateInput): RecurringTemplate => ({
  entryType: t.entryType,
  amountCents: t.amountCents,
  baseCurrency: t.baseCurrency,
  fromPartyId: t.fromPartyId ?? null,
  toPartyId: t.toPartyId ?? null,
  description: t.description ?? null,
  reference: t.reference ?? null,
  categoryId: t.categoryId ?? null,
  tagIds: [...new Set(t.tagIds ?? [])],
});

/**
 * The template follows POST /entries' rules (CONTRACT §5): its parties, tags (not archived) and category (active) must
 * be the workspace's, else 400 with the create's own wording. Read in one statement.
 */
async function assertTemplateRefs(tx: Transaction, workspaceId: number, t: RecurringTemplate): Promise<void> {
  const parties = [t.fromPartyId, t.toPartyId].filter((id): id is number => id !== null);
  const [found] = await db().query<{ parties: number[]; tags: number[]; categories: string[] }>(
    `SELECT ARRAY(SELECT id FROM parties WHERE workspace_id = $1 AND id = ANY($2::int[])) AS parties,
            ARRAY(SELECT id FROM tags WHERE workspace_id = $1 AND archived_at IS NULL AND id = ANY($3::int[])) AS tags,
            ARRAY(SELECT id::text FROM accounting_categories WHERE workspace_id = $1 AND is_active AND id = ANY($4::uuid[])) AS categories`,
    { bind: [workspaceId, parties, t.tagIds, t.categoryId ? [t.categoryId] : []], type: QueryTypes.SELECT, transaction: tx },
  );
  const party = parties.find((id) => !found.parties.map(Number).includes(id));
  if (party !== undefined) throw badRequest(`Party ${party} is not a party of this workspace`);
  const tag = t.tagIds.find((id) => !found.tags.map(Number).includes(id));
  if (tag !== undefined) throw badRequest(`Tag ${tag} is not a tag of this workspace`);
  if (t.categoryId && !found.categories.some((id) => id.toLowerCase() === t.categoryId!.toLowerCase()))
    throw badRequest(`Category ${t.categoryId} is not an active category of this workspace`);
}

function assertWindow(startDate: string, endDate: string | null): void {
  if (endDate !== null && endDate < startDate) throw badRequest(`endDate ${endDate} is before startDate ${startDate}`);
}

/** The project's workspace when the actor may see the project, else 404 (as POST /entries answers). */
async function projectWorkspace(actor: Actor, projectId: number, tx: Transaction): Promise<number> {
  const [project] = await db().query<{ workspace_id: number }>('SELECT workspace_id FROM projects WHERE id = :id', {
    replacements: { id: projectId },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  if (!project || !scope.canSeeProjectObject(actor, project.workspace_id, projectId)) throw notFound('Project');
  return project.workspace_id;
}

export async function createRecurring(actor: Actor, input: CreateRecurringEntryInput): Promise<RecurringEntryObject> {
  return transaction(async (tx) => {
    const workspaceId = await projectWorkspace(actor, input.projectId, tx);
    await validateSchedule(input.rrule, input.startDate);
    const endDate = input.endDate ?? null;
    assertWindow(input.startDate, endDate);
    const template = templateOf(input.template);
    await assertTemplateRefs(tx, workspaceId, template);
    const [row] = await db().query<RecurringRow>(
      `INSERT INTO recurring_entries (workspace_id, project_id, template, rrule, start_date, end_date, next_occurrence, created_by,
                                      api_key_id, created_at, updated_at)
       VALUES (:ws, :project, CAST(:template AS jsonb), :rrule, :start, :end, :next, :createdBy, :apiKeyId, :now, :now)
       RETURNING *`,
      {
        replacements: {
          ws: workspaceId,
          project: input.projectId,
          template: JSON.stringify(template),
          rrule: input.rrule,
          start: input.startDate,
          end: endDate,
          next: nextDate(input.rrule, { startDate: input.startDate, endDate }, null),
          createdBy: creatorOf(actor),
          apiKeyId: actor.apiKeyId ?? null,
          now: clock.now(),
        },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    return presentRecurring(row);
  });
}

export async function listRecurring(actor: Actor, input: ListRecurringEntriesQuery) {
  const reach = scope.workspaceReach(actor, input.workspaceId);
  const rows = await db().query<RecurringRow & { total: number }>(
    `SELECT r.*, count(*) OVER ()::int AS total FROM recurring_entries r
      WHERE r.workspace_id = :ws AND (CAST(:project AS int) IS NULL OR r.project_id = :project)
        AND (CAST(:all AS boolean) OR r.project_id = ANY(CAST(:projects AS int[])))
      ORDER BY r.created_at, r.id LIMIT :limit OFFSET :offset`,
    {
      replacements: {
        ws: input.workspaceId,
        project: input.projectId ?? null,
        all: reach.all,
        projects: `{${reach.all ? '' : reach.projectIds.join(',')}}`,
        limit: input.limit,
        offset: input.offset,
      },
      type: QueryTypes.SELECT,
    },
  );
  const total = rows[0]?.total ?? (input.offset > 0 ? await countRecurring(input, reach) : 0);
  return { items: rows.map(presentRecurring), total, limit: input.limit, offset: input.offset };
}

/** The total of a page past the last row (the window count is on no row then). */
async function countRecurring(input: ListRecurringEntriesQuery, reach: ReturnType<typeof scope.workspaceReach>): Promise<number> {
  const [row] = await db().query<{ total: number }>(
    `SELECT count(*)::int AS total FROM recurring_entries r
      WHERE r.workspace_id = :ws AND (CAST(:project AS int) IS NULL OR r.project_id = :project)
        AND (CAST(:all AS boolean) OR r.project_id = ANY(CAST(:projects AS int[])))`,
    {
      replacements: {
        ws: input.workspaceId,
        project: input.projectId ?? null,
        all: reach.all,
        projects: `{${reach.all ? '' : reach.projectIds.join(',')}}`,
      },
      type: QueryTypes.SELECT,
    },
  );
  return row.total;
}

export async function getRecurring(actor: Actor, input: { id: string }): Promise<RecurringEntryObject> {
  return presentRecurring(await loadRecurring(actor, input.id));
}

/** PATCH: applies to the occurrences not made yet (those recorded stay as they are). */
export async function updateRecurring(actor: Actor, input: UpdateRecurringEntryInput): Promise<RecurringEntryObject> {
  return transaction(async (tx) => {
    const row = await loadRecurring(actor, input.id, tx, true);
    const next = {
      template: input.template ? templateOf(input.template) : row.template,
      rrule: input.rrule ?? row.rrule,
      start_date: input.startDate ?? row.start_date,
      end_date: input.endDate === undefined ? row.end_date : input.endDate,
      is_active: input.isActive ?? row.is_active,
    };
    if (input.rrule !== undefined || input.startDate !== undefined) await validateSchedule(next.rrule, next.start_date);
    assertWindow(next.start_date, next.end_date);
    if (input.template) await assertTemplateRefs(tx, row.workspace_id, next.template);
    const [updated] = await db().query<RecurringRow>(
      `UPDATE recurring_entries SET template = CAST(:template AS jsonb), rrule = :rrule, start_date = :start, end_date = :end,
              is_active = :active, next_occurrence = :next, updated_at = :now
        WHERE id = :id RETURNING *`,
      {
        replacements: {
          id: row.id,
          template: JSON.stringify(next.template),
          rrule: next.rrule,
          start: next.start_date,
          end: next.end_date,
          active: next.is_active,
          next: await nextOccurrenceOf(tx, { id: row.id, ...next }),
          now: clock.now(),
        },
        type: QueryTypes.SELECT,
        transaction: tx,
      },
    );
    return presentRecurring(updated);
  });
}

/** DELETE deactivates: no occurrence is made any more; the entries already made stay. */
export async function deactivateRecurring(actor: Actor, input: { id: string }): Promise<RecurringEntryObject> {
  return updateRecurring(actor, { id: input.id, isActive: false });
}
