/**
 * The budgets domain (CONTRACT §25): plans per month, quarter or year, their report against the entries the reports
 * count, and `budget.exceeded`. The only module other domains import; `budgetReactions` is its face to the ledger core.
 */
export { budgetsRouter } from './budgets.router.js';
export { createBudget } from './budgets.service.js';
export { budgetReactions } from './reactions.js';
export { BUDGET_VS_ACTUAL_SQL, windowOf as budgetWindow } from './budget-vs-actual.js';
