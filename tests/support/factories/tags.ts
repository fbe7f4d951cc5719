import { randomUUID } from 'node:crypto';
import { Tag } from '../../../server/db/models/index.js';
import type { Api } from '../http.js';

/** A tag straight in the database. */
export async function buildTag(workspaceId: number, opts: { name?: string; color?: string } = {}) {
  const tag = await Tag.create({ workspaceId, name: opts.name ?? `tag-${randomUUID().slice(0, 8)}`, color: opts.color ?? null });
  return { id: tag.id };
}

/** A tag id through `POST /tags`, with an optional colour; through the model when the actor may not create tags. */
export async function makeTag(api: Api, token: string, workspaceId: number, name: string, color?: string): Promise<number> {
  const res = await api.post('/tags', { workspaceId, name, ...(color ? { color } : {}) }, { token });
  if (res.status === 200 || res.status === 201) return res.body.id as number;
  return (await buildTag(workspaceId, { name, color })).id;
}
