import { z } from 'zod/v4';
import { LoginInput, Me, TokenResponse } from '../../../shared/contracts/auth.js';
import { Success } from '../../../shared/contracts/common.js';
import { authedProcedure, op, publicProcedure } from '../../trpc/procedures.js';
import { router } from '../../trpc/init.js';
import * as auth from './auth.service.js';

const TAG = 'Auth';

export const authRouter = router({
  login: publicProcedure
    .meta(op('POST', '/auth/login', 'login', TAG, 'Log in with email and password', [401, 429], { protect: false }))
    .input(LoginInput)
    .output(TokenResponse)
    .mutation(({ input }) => auth.login(input)),
  refresh: publicProcedure
    .meta(
      op('POST', '/auth/refresh', 'refreshToken', TAG, 'Renew the access token (accepted up to 7 minutes after expiry)', [401], {
        description: 'Send the current token as `Authorization: Bearer <token>`; no body needed.',
      }),
    )
    .input(z.object({}).strict().optional())
    .output(TokenResponse)
    .mutation(({ ctx }) => auth.refresh(ctx.req.headers.authorization)),
  logout: authedProcedure
    .meta(op('POST', '/auth/logout', 'logout', TAG, 'Revoke the current session (403 for an API key)', [403]))
    .input(z.object({}).strict().optional())
    .output(Success)
    .mutation(({ ctx }) => auth.logout(ctx.actor)),
  me: authedProcedure
    .meta(op('GET', '/auth/me', 'getMe', TAG, 'The caller with permissions and memberships (403 for an API key)', [403]))
    .input(z.object({}).optional())
    .output(Me)
    .query(({ ctx }) => auth.me(ctx.actor)),
});
