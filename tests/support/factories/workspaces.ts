import { EntrySource, Project, ProjectMember, Workspace, WorkspaceMember } from '../../../server/db/models/index.js';
import { sessionCache } from '../../../server/domains/auth/authenticate.js';

export async function buildWorkspace(opts: { members?: string[]; name?: string; projects?: number } = {}) {
  const ws = await Workspace.create({ name: opts.name ?? 'Test Workspace', baseCurrency: 'USD' });
  for (const userId of opts.members ?? []) await WorkspaceMember.create({ workspaceId: ws.id, userId });
  if (opts.members?.length) await sessionCache.settled();
  const source = await EntrySource.create({ workspaceId: ws.id, kind: 'MANUAL', name: 'Manual' });
  const projects = [];
  for (let i = 0; i < (opts.projects ?? 1); i++) {
    projects.push(await Project.create({ workspaceId: ws.id, name: `Project ${i + 1}`, code: `P${i + 1}` }));
  }
  return { id: ws.id, projectIds: projects.map((p) => p.id), sourceId: source.id };
}

export async function addProjectMember(projectId: number, userId: string) {
  const p = await Project.findByPk(projectId);
  await ProjectMember.create({ projectId, userId, workspaceId: p!.workspaceId });
  await sessionCache.settled();
}
