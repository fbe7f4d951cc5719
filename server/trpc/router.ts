import { router } from './init.js';
import { apiKeysRouter, authRouter } from '../domains/auth/index.js';
import { usersRouter } from '../domains/users/users.router.js';
import { workspacesRouter } from '../domains/workspaces/workspaces.router.js';
import { projectsRouter } from '../domains/workspaces/projects.router.js';
import { entrySourcesRouter } from '../domains/workspaces/entry-sources.router.js';
import { partiesRouter } from '../domains/parties/parties.router.js';
import { tagsRouter } from '../domains/tags/tags.router.js';
import { entriesRouter } from '../domains/entries/entries.router.js';
import { periodsRouter } from '../domains/periods/periods.router.js';
import { reportsRouter } from '../domains/reports/reports.router.js';
import { integrationsRouter } from '../domains/integrations/integrations.router.js';
import { documentsRouter } from '../domains/documents/documents.router.js';
import { inboxRouter } from '../domains/documents/index.js';
import { connectionsRouter } from '../domains/accounting/connections/connections.router.js';
import { categoriesRouter } from '../domains/accounting/categories/categories.router.js';
import { mappingsRouter } from '../domains/accounting/mappings/mappings.router.js';
import { reviewsRouter } from '../domains/accounting/reviews/reviews.router.js';
import { accountingDashboardRouter } from '../domains/accounting/dashboard/dashboard.router.js';
import { syncRouter } from '../domains/accounting/sync/sync.router.js';
import { bankAccountsRouter, bankLinesRouter, reconciliationRouter } from '../domains/banking/index.js';
import { webhooksRouter } from '../domains/webhooks/webhooks.router.js';
import { rulesRouter } from '../domains/rules/index.js';
import { fxRouter } from '../domains/fx/index.js';
import { benchBaselineRouters } from '../domains/system/bench.router.js';

export const appRouter = router({
  auth: authRouter,
  apiKeys: apiKeysRouter,
  users: usersRouter,
  workspaces: workspacesRouter,
  projects: projectsRouter,
  entrySources: entrySourcesRouter,
  parties: partiesRouter,
  tags: tagsRouter,
  entries: entriesRouter,
  periods: periodsRouter,
  reports: reportsRouter,
  integrations: integrationsRouter,
  documents: documentsRouter,
  inbox: inboxRouter,
  accountingConnections: connectionsRouter,
  accountingCategories: categoriesRouter,
  accountingMappings: mappingsRouter,
  accountingReviews: reviewsRouter,
  accountingDashboard: accountingDashboardRouter,
  accountingSync: syncRouter,
  bankAccounts: bankAccountsRouter,
  bankLines: bankLinesRouter,
  reconciliation: reconciliationRouter,
  webhooks: webhooksRouter,
  rules: rulesRouter,
  fx: fxRouter,
  ...benchBaselineRouters(), // only under BENCH_BASELINE=1 (bench/run.ts)
});

export type AppRouter = typeof appRouter;
