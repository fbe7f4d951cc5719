/** What the scenarios run against: the read dataset, a bench user, and a scratch workspace for writes. */
import { randomBytes } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import { User, WorkspaceMember } from '../../server/db/models/index.js';
import { hashPassword } from '../../server/domains/auth/passwords.js';
import { PERMISSIONS } from '../../shared/permissions.js';
import { datasetName, generateDataset } from '../generate-dataset.js';

export type ReadDataset = {
  workspaceId: number;
  projectIds: number[];
  partyIds: number[];
  tagIds: number[];
  entryIds: [number, number];
  entries: number;
};
export type WriteWorkspace = { workspaceId: number; projectId: number; sourceId: number };

/** A POST /entries body: a plain USD expense in `projectId` that no bench rule matches and no rate values. */
export const plainEntryBody = (projectId: number, description: string, reference: string): string =>
  JSON.stringify({
    projectId,
    entryType: 'EXPENSE',
    baseCurrency: 'USD',
    amountCents: 12_345,
    entryDate: '2026-01-15',
    description,
    reference,
  });

async function select<T extends object>(db: Sequelize, sql: string, bind: unknown[] = []): Promise<T[]> {
  return db.query<T>(sql, { bind, type: QueryTypes.SELECT });
}

/** The newest complete "Bench <n>" workspace, generated now when there is none (or `rebuild`). */
export async function ensureDataset(
  db: Sequelize,
  entries: number,
  log: (m: string) => void,
): Promise<ReadDataset & { builtSeconds?: number }> {
  let builtSeconds: number | undefined;
  const find = () =>
    select<{ id: number; n: number }>(
      db,
      `SELECT w.id, (SELECT count(*)::int FROM entries e WHERE e.workspace_id = w.id) AS n
         FROM workspaces w WHERE w.name = $1 ORDER BY w.id DESC`,
      [datasetName(entries)],
    );
  let ws = (await find()).find((w) => w.n === entries);
  if (!ws) {
    log(`building the dataset: ${entries.toLocaleString('en-US')} entries (set-based SQL)`);
    const built = await generateDataset(db, entries, log);
    builtSeconds = built.seconds;
    ws = { id: built.workspaceId, n: entries };
  }
  const ids = async (table: string) =>
    (await select<{ id: number }>(db, `SELECT id FROM ${table} WHERE workspace_id = $1 ORDER BY id`, [ws.id])).map((r) => r.id);
  const [range] = await select<{ lo: number; hi: number }>(
    db,
    'SELECT min(id)::bigint AS lo, max(id)::bigint AS hi FROM entries WHERE workspace_id = $1',
    [ws.id],
  );
  return {
    workspaceId: ws.id,
    projectIds: await ids('projects'),
    partyIds: await ids('parties'),
    tagIds: await ids('tags'),
    entryIds: [Number(range.lo), Number(range.hi)],
    entries,
    builtSeconds,
  };
}

/** A fresh workspace for POST /entries and ingest, so the read dataset stays the same between runs. */
export async function createWriteWorkspace(db: Sequelize): Promise<WriteWorkspace> {
  const [ws] = await select<{ id: number }>(db, `INSERT INTO workspaces (name, base_currency) VALUES ($1, 'USD') RETURNING id`, [
    `Bench writes ${new Date().toISOString()}`,
  ]);
  const [project] = await select<{ id: number }>(
    db,
    `INSERT INTO projects (workspace_id, name, code) VALUES ($1, 'Writes', 'W') RETURNING id`,
    [ws.id],
  );
  const [source] = await select<{ id: number }>(
    db,
    `INSERT INTO entry_sources (workspace_id, kind, name) VALUES ($1, 'MANUAL', 'Manual') RETURNING id`,
    [ws.id],
  );
  return { workspaceId: ws.id, projectId: project.id, sourceId: source.id };
}

/** A user with every permission, member of the given workspaces; returns a bearer token from POST /auth/login. */
export async function benchUser(base: string, workspaceIds: number[]): Promise<string> {
  const email = `bench-${randomBytes(4).toString('hex')}@example.test`;
  const password = randomBytes(12).toString('base64url');
  const user = await User.create({
    email,
    name: 'Bench',
    passwordHash: await hashPassword(password),
    permissions: [...PERMISSIONS],
    isActive: true,
  });
  for (const workspaceId of workspaceIds) await WorkspaceMember.create({ workspaceId, userId: user.id });
  const res = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) throw new Error(`login: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}
