/**
 * A suite's budget: `fast` under `npm test`, `hard` under `npm run test:hard` (vitest.hard.config.ts sets
 * TEST_BUDGET=hard and runs the same files). A long variant is the same file with a larger budget.
 */
export const hardBudget = process.env.TEST_BUDGET === 'hard';

export const byBudget = <T>(fast: T, hard: T): T => (hardBudget ? hard : fast);
