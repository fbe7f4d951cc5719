import { expect } from 'vitest';
import type { Permission } from '../../../shared/permissions.js';
import { expectOk, setStatus } from '../entries.js';
import type { Api, ApiResponse } from '../http.js';
import { makeParty } from './parties.js';
import { actor } from './users.js';
import { buildWorkspace } from './workspaces.js';

export type EntryWorld = {
  api: Api;
  ws: Awaited<ReturnType<typeof buildWorkspace>>;
  owner: Awaited<ReturnType<typeof actor>>;
  token: string;
  userId: string;
  workspaceId: number;
  /** the first of `projectIds` */
  projectId: number;
  projectIds: number[];
  /** four parties of the workspace */
  parties: [number, number, number, number];
};

/** A workspace with `projects` projects (1), four parties and a member holding every permission (or those given). */
export async function entryWorld(api: Api, opts: { projects?: number; permissions?: readonly Permission[] } = {}): Promise<EntryWorld> {
  const ws = await buildWorkspace({ projects: opts.projects ?? 1 });
  const owner = await actor(api, { workspaceId: ws.id, permissions: opts.permissions });
  const names = ['Acme Ltd', 'Globex', 'Initech', 'Umbrella'];
  const parties = [] as number[];
  for (const n of names) parties.push(await makeParty(api, owner.token, ws.id, n));
  return {
    api,
    ws,
    owner,
    token: owner.token,
    userId: owner.id,
    workspaceId: ws.id,
    projectId: ws.projectIds[0],
    projectIds: ws.projectIds,
    parties: parties as EntryWorld['parties'],
  };
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

export type EntryOverrides = Record<string, unknown>;

/** `POST /entries` with sensible defaults; returns the created entry. */
export async function createEntry(w: EntryWorld, overrides: EntryOverrides = {}): Promise<any> {
  const res = await w.api.post(
    '/entries',
    {
      projectId: w.projectId,
      entryType: 'EXPENSE',
      amountCents: 10_000,
      baseCurrency: 'USD',
      entryDate: '2026-01-15',
      fromPartyId: w.parties[0],
      toPartyId: w.parties[1],
      description: 'Office chairs',
      reference: 'INV-1',
      ...overrides,
    },
    { token: w.token },
  );
  expectOk(res, 'create entry');
  return res.body;
}

/**
 * An entry brought into `status` through allowed API transitions only:
 * PENDING (create), UNDER_REVIEW/COMPLETED/REJECTED/CANCELLED (status), VOIDED (void).
 */
export async function entryIn(w: EntryWorld, status: string, overrides: EntryOverrides = {}): Promise<any> {
  const entry = await createEntry(w, overrides);
  if (status === 'PENDING') return entry;
  let res: ApiResponse;
  if (status === 'VOIDED') res = await w.api.post(`/entries/${entry.id}/void`, { reason: 'setup void' }, { token: w.token });
  else res = await setStatus(w, entry.id, status, ['REJECTED', 'CANCELLED'].includes(status) ? `setup ${status}` : undefined);
  expectOk(res, `bring entry to ${status}`);
  expect(res.body.entryStatus).toBe(status);
  return res.body;
}
