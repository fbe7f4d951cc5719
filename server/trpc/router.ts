import { router } from './init.js';
import { apiKeysRouter, authRouter } from '../domains/auth/index.js';
import { usersRouter } from '../domains/users/index.js';
import { entrySourcesRouter, projectsRouter, workspacesRouter } from '../domains/workspaces/index.js';
import { partiesRouter } from '../domains/parties/index.js';
import { tagsRouter } from '../domains/tags/index.js';
import { entriesRouter } from '../domains/entries/index.js';
import { periodsRouter } from '../domains/periods/index.js';
import { reportsRouter } from '../domains/reports/index.js';
import { integrationsRouter } from '../domains/integrations/index.js';
import { documentsRouter, inboxRouter } from '../domains/documents/index.js';
import {
  accountingDashboardRouter,
  categoriesRouter,
  connectionsRouter,
  mappingsRouter,
  reviewsRouter,
  syncRouter,
} from '../domains/accounting/index.js';
import { bankAccountsRouter, bankLinesRouter, reconciliationRouter } from '../domains/banking/index.js';
import { webhooksRouter } from '../domains/outbound-webhooks/index.js';
import { rulesRouter } from '../domains/rules/index.js';
import { fxRouter } from '../domains/fx/index.js';
import { booksReadRouter, booksWriteRouter } from '../domains/books/index.js';
import { recurringRouter } from '../domains/recurring/index.js';
import { budgetsRouter } from '../domains/budgets/index.js';
import { benchBaselineRouters } from './bench-baseline.router.js';

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
  booksRead: booksReadRouter,
  booksWrite: booksWriteRouter,
  recurringEntries: recurringRouter,
  budgets: budgetsRouter,
  ...benchBaselineRouters(), // only under BENCH_BASELINE=1 (bench/run.ts)
});

export type AppRouter = typeof appRouter;
