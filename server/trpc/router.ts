import { router } from './init.js';
import { authRouter } from '../domains/auth/auth.router.js';
import { usersRouter } from '../domains/users/users.router.js';
import { workspacesRouter } from '../domains/workspaces/workspaces.router.js';
import { projectsRouter } from '../domains/workspaces/projects.router.js';
import { entrySourcesRouter } from '../domains/workspaces/entry-sources.router.js';
import { partiesRouter } from '../domains/parties/parties.router.js';
import { tagsRouter } from '../domains/tags/tags.router.js';
import { entriesRouter } from '../domains/entries/entries.router.js';
import { periodsRouter } from '../domains/accounting/periods/periods.router.js';

export const appRouter = router({
  auth: authRouter,
  users: usersRouter,
  workspaces: workspacesRouter,
  projects: projectsRouter,
  entrySources: entrySourcesRouter,
  parties: partiesRouter,
  tags: tagsRouter,
  entries: entriesRouter,
  periods: periodsRouter,
});

export type AppRouter = typeof appRouter;
