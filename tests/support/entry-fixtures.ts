import { expect } from 'vitest';
import { Party, Tag } from '../../server/db/models/index.js';
import type { Permission } from '../../shared/permissions.js';
import { actor, buildWorkspace } from './factories.js';
import type { Api } from './http.js';

/** A workspace with `projects` projects and a member holding every permission. */
export async function entryWorld(api: Api, opts: { projects?: number; permissions?: readonly Permission[] } = {}) {
  const ws = await buildWorkspace({ projects: opts.projects ?? 2 });
  const owner = await actor(api, { workspaceId: ws.id, permissions: opts.permissions });
  return { ws, workspaceId: ws.id, projectIds: ws.projectIds, owner, token: owner.token };
}

/** A party made through `POST /parties`, falling back to the model when that route is not there yet. */
export async function makeParty(api: Api, token: string, workspaceId: number, name: string): Promise<number> {
  const res = await api.post('/parties', { workspaceId, name, partyType: 'ORGANIZATION' }, { token });
  if (res.status === 200 || res.status === 201) return res.body.id as number;
  const party = await Party.create({ workspaceId, name, partyType: 'ORGANIZATION' });
  return party.id;
}

/** A tag made through `POST /tags`, falling back to the model when that route is not there yet. */
export async function makeTag(api: Api, token: string, workspaceId: number, name: string, color?: string): Promise<number> {
  const res = await api.post('/tags', { workspaceId, name, ...(color ? { color } : {}) }, { token });
  if (res.status === 200 || res.status === 201) return res.body.id as number;
  const tag = await Tag.create({ workspaceId, name, color: color ?? null });
  return tag.id;
}

export type EntryBody = {
  projectId: number;
  entryType?: 'INCOME' | 'EXPENSE';
  amountCents?: number;
  baseCurrency?: string;
  entryDate?: string;
  [k: string]: unknown;
};

/** `POST /entries` with defaults for the required fields; fails the test on a non-2xx. */
export async function makeEntry(api: Api, token: string, body: EntryBody): Promise<any> {
  const res = await api.post(
    '/entries',
    { entryType: 'EXPENSE', amountCents: 1000, baseCurrency: 'USD', entryDate: '2026-01-15', ...body },
    { token },
  );
  if (res.status !== 200 && res.status !== 201) throw new Error(`create entry failed: ${res.status} ${res.text}`);
  return res.body;
}

/** Ids of a `GET /entries` page, in order. */
export async function listIds(api: Api, token: string, query: Record<string, string | number | boolean | undefined>): Promise<number[]> {
  const res = await api.get('/entries', { token, query: { limit: 100, ...query } });
  expect(res.status, res.text).toBe(200);
  return (res.body.items as { id: number }[]).map((e) => e.id);
}

export const ISO_TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const SHA256 = /^[0-9a-f]{64}$/;

/** The fields of the entry object of CONTRACT §5, sorted — written out here, not derived from the implementation. */
export const ENTRY_KEYS = [
  'amountBaseCents',
  'amountCents',
  'baseCurrency',
  'createdAt',
  'createdBy',
  'description',
  'entryDate',
  'entrySourceId',
  'entryStatus',
  'entryType',
  'excludeFromSync',
  'fromPartyId',
  'fxRate',
  'fxRateDate',
  'id',
  'isComplete',
  'isReconciled',
  'projectId',
  'reconciledAt',
  'reconciledBy',
  'reference',
  'statusReason',
  'toPartyId',
  'updatedAt',
  'workspaceId',
];
