import { EntrySource } from '../../db/models/index.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { EntrySourceObject } from '../../../shared/contracts/tags.js';
import { presentEntrySource } from './presenters.js';

/** The workspace's built-in sources (MANUAL and one per integration); needs membership. */
export async function listEntrySources(actor: Actor, input: { workspaceId: number }): Promise<EntrySourceObject[]> {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  const rows = await EntrySource.findAll({ where: { workspaceId: input.workspaceId }, order: [['id', 'ASC']] });
  return rows.map(presentEntrySource);
}
