import type { Transaction } from '../../../db/database.js';
import { preparedQuery } from '../../../db/prepared.js';
import { badRequest, conflict } from '../../../lib/errors.js';
import type { NewEntry } from '../entry-writes.js';
import { reactions } from './reactions.js';
import { writeRefusal } from './writable.js';

/*
 * The create's statement before its insert (createEntries in create.ts tells the story of a create; this is
 * its one round trip of checks and look-ups).
 */

export type Prepared = {
  closed_period: string | null;
  manual_source_id: number | null;
  entry_id: number;
  projects: number[];
  parties: number[];
  tags: number[];
  sources: number[];
  categories: string[];
  fx_rate: string | null;
  fx_rate_date: string | null;
  amount_base_cents: number | null;
  reviews_due: boolean;
  budgets_due: boolean;
};

export type References = {
  projectIds?: (number | null | undefined)[];
  partyIds?: (number | null | undefined)[];
  tagIds?: number[];
  entrySourceId?: number;
  categoryIds?: (string | null | undefined)[];
};
const numbers = (ids: (number | null | undefined)[] = []) => [...new Set(ids.filter((id): id is number => typeof id === 'number'))];
const strings = (ids: (string | null | undefined)[] = []) => [...new Set(ids.filter((id): id is string => typeof id === 'string'))];

/** 400 for the first reference of `refs` that `found` does not hold (the order and messages of assertReferences). */
function assertFound(found: Prepared, refs: References): void {
  const projects = new Set(found.projects.map(Number));
  const missingProject = numbers(refs.projectIds).find((id) => !projects.has(id));
  if (missingProject !== undefined) throw badRequest(`Project ${missingProject} is not a project of this workspace`);
  const parties = new Set(found.parties.map(Number));
  const missingParty = numbers(refs.partyIds).find((id) => !parties.has(id));
  if (missingParty !== undefined) throw badRequest(`Party ${missingParty} is not a party of this workspace`);
  const tags = new Set(found.tags.map(Number));
  const missingTag = [...new Set(refs.tagIds ?? [])].find((id) => !tags.has(id));
  if (missingTag !== undefined) throw badRequest(`Tag ${missingTag} is not a tag of this workspace`);
  if (refs.entrySourceId !== undefined && !found.sources.map(Number).includes(refs.entrySourceId))
    throw badRequest(`Entry source ${refs.entrySourceId} is not a source of this workspace`);
  const categories = new Set(found.categories.map((id) => id.toLowerCase()));
  const missingCategory = strings(refs.categoryIds).find((id) => !categories.has(id.toLowerCase()));
  if (missingCategory !== undefined) throw badRequest(`Category ${missingCategory} is not an active category of this workspace`);
}

/** The parameters of one create's checks: workspace, date, currency, amount, project (as the rules left it), then the ids to check. */
function parametersOf(
  given: Pick<NewEntry, 'workspaceId' | 'entryDate'>,
  draft: Pick<NewEntry, 'baseCurrency' | 'amountCents' | 'projectId'>,
  checks: References[],
) {
  const all = <T>(pick: (r: References) => T[] | undefined): T[] => checks.flatMap((r) => pick(r) ?? []);
  return [
    given.workspaceId,
    given.entryDate,
    draft.baseCurrency,
    draft.amountCents,
    draft.projectId,
    numbers(all((r) => r.projectIds)),
    numbers(all((r) => r.partyIds)),
    numbers(all((r) => r.tagIds)),
    numbers(all((r) => (r.entrySourceId === undefined ? [] : [r.entrySourceId]))),
    strings(all((r) => r.categoryIds)),
  ] as const;
}

/** 409 when the date is in a closed period, then 400 for a reference the caller gave, then for one the rules added. */
function assertPrepared(row: Prepared, given: Pick<NewEntry, 'entryDate'>, checks: References[]): void {
  const refusal = writeRefusal(null, { kind: 'create', date: given.entryDate }, () => row.closed_period ?? undefined);
  if (refusal !== null) throw conflict(refusal);
  for (const refs of checks) assertFound(row, refs);
}

/** One create (core/create.ts): what prepareMany checks for it. */
export type PrepareRequest = {
  given: Pick<NewEntry, 'workspaceId' | 'entryDate'>;
  draft: Pick<NewEntry, 'baseCurrency' | 'amountCents' | 'projectId'>;
  checks: References[];
};

/**
 * ONE statement before the insert, a row per create (in order): the shared period lock and the closed period at
 * the date (migration 0019's function, whose check runs with a snapshot taken after the lock), the workspace's
 * MANUAL source, an id for the new entry, which of the named references are usable ids of the workspace, the
 * valuation (fx), whether a connection will queue the entry for review (accounting) and whether the workspace
 * has budgets (budgets). Each create's own verdict: its Prepared row, or its own 409/400 (a bad one fails no other).
 * `s` names where a create's values come from (SQL expressions), its FROM clause and its ORDER BY: bound
 * parameters for a lone create (prepareOneSql), a JSON recordset for a group (prepareManySql).
 */
const prepareSql = (s: {
  ws: string;
  date: string;
  currency: string;
  amount: string;
  projectId: string;
  projects: string;
  parties: string;
  tags: string;
  sources: string;
  categories: string;
  from: string;
  orderBy: string;
}) => `
  SELECT entry_write_closed_period(${s.ws}, ${s.date}) AS closed_period,
         (SELECT id FROM entry_sources WHERE workspace_id = ${s.ws} AND kind = 'MANUAL') AS manual_source_id,
         nextval(pg_get_serial_sequence('entries', 'id'))::bigint AS entry_id,
         ARRAY(SELECT id FROM projects WHERE workspace_id = ${s.ws} AND id = ANY (${s.projects})) AS projects,
         ARRAY(SELECT id FROM parties WHERE workspace_id = ${s.ws} AND id = ANY (${s.parties})) AS parties,
         ARRAY(SELECT id FROM tags WHERE workspace_id = ${s.ws} AND id = ANY (${s.tags}) AND archived_at IS NULL) AS tags,
         ARRAY(SELECT id FROM entry_sources WHERE workspace_id = ${s.ws} AND id = ANY (${s.sources})) AS sources,
         ARRAY(SELECT id::text FROM accounting_categories WHERE workspace_id = ${s.ws} AND is_active AND id = ANY (${s.categories})) AS categories,
         v.fx_rate, v.fx_rate_date, v.amount_base_cents,
         ${reactions().newEntrySql.reviewsDue(s.ws, s.projectId)} AS reviews_due,
         ${reactions().newEntrySql.budgetsDue(s.ws)} AS budgets_due
    ${s.from}
    LEFT JOIN LATERAL ${reactions().newEntrySql.valuation(s.ws, s.currency, s.date, s.amount)} v ON true
   ${s.orderBy}`;

/**
 * The statement of a lone create (a group of one), with its workspace and date bound as parameters, so Citus
 * routes it to the workspace's shard group and evaluates the closed-period function and the id on the
 * coordinator (CONTRACT §24): $1 ws, $2 date, $3 currency, $4 amount, $5 project (as the rules left it),
 * $6 projects, $7 parties, $8 tags, $9 sources, $10 categories to check.
 */
let prepareOneText: string | undefined;
const prepareOneSql = () =>
  (prepareOneText ??= prepareSql({
    ws: '$1::int',
    date: '$2::date',
    currency: '$3::text',
    amount: '$4::bigint',
    projectId: '$5::int',
    projects: '$6::int[]',
    parties: '$7::int[]',
    tags: '$8::int[]',
    sources: '$9::int[]',
    categories: '$10::uuid[]',
    from: 'FROM (SELECT 1) one',
    orderBy: '',
  }));

/**
 * The statement of a larger group (a group of one runs prepareOneSql): it reads its creates from JSON, which Citus
 * cannot route to one shard group: there createEntries writes a group create by create.
 */
let prepareManyText: string | undefined;
const prepareManySql = () =>
  (prepareManyText ??= prepareSql({
    ws: 'p.ws',
    date: 'p.entry_date',
    currency: 'p.currency',
    amount: 'p.amount',
    projectId: 'p.project_id',
    projects: 'p.projects',
    parties: 'p.parties',
    tags: 'p.tags',
    sources: 'p.sources',
    categories: 'p.categories',
    from: `FROM jsonb_to_recordset($1::jsonb)
      AS p(ws int, entry_date date, currency text, amount bigint, project_id int, projects int[], parties int[], tags int[],
           sources int[], categories uuid[], n int)`,
    orderBy: 'ORDER BY p.n',
  }));

export async function prepareMany(tx: Transaction, requests: PrepareRequest[]): Promise<({ prepared: Prepared } | { error: unknown })[]> {
  const rows = await (requests.length === 1 ? prepareOne(tx, requests[0]) : prepareTogether(tx, requests));
  return rows.map((row, i) => {
    try {
      assertPrepared(row, requests[i].given, requests[i].checks);
      return { prepared: row };
    } catch (error) {
      return { error };
    }
  });
}

const prepareOne = (tx: Transaction, { given, draft, checks }: PrepareRequest) =>
  preparedQuery<Prepared>(tx, 'entries_create_prepare', prepareOneSql(), [...parametersOf(given, draft, checks)]);

function prepareTogether(tx: Transaction, requests: PrepareRequest[]) {
  const json = requests.map(({ given, draft, checks }, n) => {
    const [ws, entryDate, currency, amount, projectId, projects, parties, tags, sources, categories] = parametersOf(given, draft, checks);
    return { n, ws, entry_date: entryDate, currency, amount, project_id: projectId, projects, parties, tags, sources, categories };
  });
  return preparedQuery<Prepared>(tx, 'entries_create_prepare_many', prepareManySql(), [JSON.stringify(json)]);
}
