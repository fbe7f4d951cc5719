import { z } from 'zod/v4';
import { Success, UuidPath } from '../../../shared/contracts/common.js';
import { CreateUserInput, UpdateUserInput, UserObject } from '../../../shared/contracts/users.js';
import { router } from '../../trpc/init.js';
import { op, permitted, permittedOrOwn } from '../../trpc/procedures.js';
import * as users from './users.service.js';

const TAG = 'Users';

export const usersRouter = router({
  list: permitted('user.read')
    .meta(op('GET', '/users', 'listUsers', TAG, 'Users sharing a workspace with the caller, created by the caller, and the caller', [403]))
    .input(z.object({}).optional())
    .output(z.array(UserObject))
    .query(({ ctx }) => users.listUsers(ctx.actor)),
  create: permitted('user.edit')
    .meta(op('POST', '/users', 'createUser', TAG, 'Create a user (only with permissions the caller holds)', [403, 409]))
    .input(CreateUserInput)
    .output(UserObject)
    .mutation(({ ctx, input }) => users.createUser(ctx.actor, input)),
  update: permittedOrOwn('user.edit', users.isOwnProfileChange)
    .meta(
      op('PATCH', '/users/{id}', 'updateUser', TAG, 'Change the name, password, permissions or active flag of a user', [403, 404, 409], {
        description:
          'Needs `user.edit`, except for your own `name` and `password` (a person, not an API key). ' +
          'Another user can be changed only by a member of every workspace it belongs to who reaches every project it is a ' +
          'project member of (else 403, nothing changes). Your own password change needs `currentPassword` (missing: 400, ' +
          "wrong: 401). A password change revokes every session of the user except the caller's current one.",
      }),
    )
    .input(UpdateUserInput)
    .output(UserObject)
    .mutation(({ ctx, input }) => users.updateUser(ctx.actor, input)),
  deactivate: permitted('user.delete')
    .meta(
      op('DELETE', '/users/{id}', 'deactivateUser', TAG, 'Deactivate a user and revoke its sessions', [403, 404, 409], {
        description: 'Needs membership of every workspace (and reach of every project) the user belongs to (else 403).',
      }),
    )
    .input(UuidPath)
    .output(Success)
    .mutation(({ ctx, input }) => users.deactivateUser(ctx.actor, input)),
});
