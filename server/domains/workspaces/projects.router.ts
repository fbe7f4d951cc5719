import { z } from 'zod/v4';
import { Success, WorkspaceQuery } from '../../../shared/contracts/common.js';
import {
  CreateProjectInput,
  MemberObject,
  ProjectMemberInput,
  ProjectObject,
  RemoveProjectMemberInput,
  UpdateProjectInput,
} from '../../../shared/contracts/workspaces.js';
import { router } from '../../trpc/init.js';
import { op, permitted } from '../../trpc/procedures.js';
import * as projects from './projects.service.js';

const TAG = 'Projects';

export const projectsRouter = router({
  list: permitted('workspace.read')
    .meta(op('GET', '/projects', 'listProjects', TAG, 'Projects of a workspace the caller reaches', [403]))
    .input(WorkspaceQuery)
    .output(z.array(ProjectObject))
    .query(({ ctx, input }) => projects.listProjects(ctx.actor, input)),
  create: permitted('workspace.edit')
    .meta(op('POST', '/projects', 'createProject', TAG, 'Create a project (code unique per workspace)', [403, 409]))
    .input(CreateProjectInput)
    .output(ProjectObject)
    .mutation(({ ctx, input }) => projects.createProject(ctx.actor, input)),
  update: permitted('workspace.edit')
    .meta(op('PATCH', '/projects/{id}', 'updateProject', TAG, 'Rename a project or change its code', [403, 404, 409]))
    .input(UpdateProjectInput)
    .output(ProjectObject)
    .mutation(({ ctx, input }) => projects.updateProject(ctx.actor, input)),
  addMember: permitted('workspace.edit')
    .meta(op('POST', '/projects/{id}/members', 'addProjectMember', TAG, 'Give a user access to one project', [403, 404, 409]))
    .input(ProjectMemberInput)
    .output(MemberObject)
    .mutation(({ ctx, input }) => projects.addProjectMember(ctx.actor, input)),
  removeMember: permitted('workspace.edit')
    .meta(op('DELETE', '/projects/{id}/members/{userId}', 'removeProjectMember', TAG, 'Remove a user from a project', [403, 404]))
    .input(RemoveProjectMemberInput)
    .output(Success)
    .mutation(({ ctx, input }) => projects.removeProjectMember(ctx.actor, input)),
});
