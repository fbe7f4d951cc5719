import { router } from './init.js';
import { authRouter } from '../domains/auth/auth.router.js';

export const appRouter = router({
  auth: authRouter,
});

export type AppRouter = typeof appRouter;
