import { Party } from '../../../server/db/models/index.js';
import type { Api } from '../http.js';

/** A party straight in the database. */
export async function buildParty(workspaceId: number, opts: { name?: string; partyType?: 'PERSON' | 'ORGANIZATION' } = {}) {
  const party = await Party.create({ workspaceId, name: opts.name ?? 'Test Party', partyType: opts.partyType ?? 'ORGANIZATION' });
  return { id: party.id };
}

/** A party id through `POST /parties`; through the model when the actor may not create parties (a narrow-permission world). */
export async function makeParty(api: Api, token: string, workspaceId: number, name: string): Promise<number> {
  const res = await api.post('/parties', { workspaceId, name, partyType: 'ORGANIZATION' }, { token });
  if (res.status === 200 || res.status === 201) return res.body.id as number;
  return (await buildParty(workspaceId, { name })).id;
}
