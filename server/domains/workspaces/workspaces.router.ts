import { z } from 'zod/v4';
import { IdPath, Success } from '../../../shared/contracts/common.js';
import {
  AddMemberInput,
  CreateWorkspaceInput,
  MemberObject,
  RemoveMemberInput,
  UpdateWorkspaceInput,
  WorkspaceObject,
} from '../../../shared/contracts/workspaces.js';
import { router } from '../../trpc/init.js';
import { op, permitted } from '../../trpc/procedures.js';
import * as members from './members.service.js';
import * as workspaces from './workspaces.service.js';

const TAG = 'Workspaces';

export const workspacesRouter = router({
  list: permitted('workspace.read')
    .meta(op('GET', '/workspaces', 'listWorkspaces', TAG, 'Workspaces the caller is a member of', [403]))
    .input(z.object({}).optional())
    .output(z.array(WorkspaceObject))
    .query(({ ctx }) => workspaces.listWorkspaces(ctx.actor)),
  create: permitted('workspace.create')
    .meta(op('POST', '/workspaces', 'createWorkspace', TAG, 'Create a workspace; the creator becomes its member', [403]))
    .input(CreateWorkspaceInput)
    .output(WorkspaceObject)
    .mutation(({ ctx, input }) => workspaces.createWorkspace(ctx.actor, input)),
  get: permitted('workspace.read')
    .meta(op('GET', '/workspaces/{id}', 'getWorkspace', TAG, 'One workspace', [403, 404]))
    .input(IdPath)
    .output(WorkspaceObject)
    .query(({ ctx, input }) => workspaces.getWorkspace(ctx.actor, input)),
  update: permitted('workspace.edit')
    .meta(op('PATCH', '/workspaces/{id}', 'updateWorkspace', TAG, 'Rename a workspace or change its base currency', [403, 404, 409]))
    .input(UpdateWorkspaceInput)
    .output(WorkspaceObject)
    .mutation(({ ctx, input }) => workspaces.updateWorkspace(ctx.actor, input)),
  listMembers: permitted('workspace.edit')
    .meta(op('GET', '/workspaces/{id}/members', 'listWorkspaceMembers', TAG, 'Members of a workspace', [403, 404]))
    .input(IdPath)
    .output(z.array(MemberObject))
    .query(({ ctx, input }) => members.listMembers(ctx.actor, input)),
  addMember: permitted('workspace.edit')
    .meta(op('POST', '/workspaces/{id}/members', 'addWorkspaceMember', TAG, 'Add a user to a workspace', [403, 404, 409]))
    .input(AddMemberInput)
    .output(MemberObject)
    .mutation(({ ctx, input }) => members.addMember(ctx.actor, input)),
  removeMember: permitted('workspace.edit')
    .meta(
      op('DELETE', '/workspaces/{id}/members/{userId}', 'removeWorkspaceMember', TAG, 'Remove a user from a workspace', [403, 404, 409]),
    )
    .input(RemoveMemberInput)
    .output(Success)
    .mutation(({ ctx, input }) => members.removeMember(ctx.actor, input)),
});
