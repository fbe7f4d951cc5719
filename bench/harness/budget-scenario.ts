/**
 * CONTRACT §25 speed: GET /reports/budget-vs-actual over HTTP against the same SQL run alone with pg (the budget's
 * one statement, BUDGET_VS_ACTUAL_SQL, with the same parameters), interleaved so that outside load hits both sides
 * alike. The budget: 36 months over the dataset's three years, the whole workspace's income and expenses and those of
 * three projects (8 lines). Limit: 1.25.
 */
import pg from 'pg';
import { BUDGET_VS_ACTUAL_SQL, budgetWindow } from '../../server/domains/budgets/index.js';
import { repeat } from './load.js';
import { metered, type Metered } from './cpu.js';
import type { BenchContext } from './scenarios.js';
import { medianRow, type ResultRow } from './table.js';

const PERIOD = 'MONTH';
const START = '2024-01-01';
const PERIODS = 36;

async function call(c: BenchContext, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(new URL(path, c.server.base), {
    method,
    headers: { authorization: `Bearer ${c.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

export async function budgetScenario(c: BenchContext, client: pg.Client): Promise<ResultRow> {
  const projects = c.dataset.projectIds.slice(0, 3);
  const lines = (['EXPENSE', 'INCOME'] as const).flatMap((entryType) => [
    { entryType, amountCents: 50_000_000 },
    ...projects.map((projectId) => ({ entryType, projectId, amountCents: 10_000_000 })),
  ]);
  const budget = await call(c, 'POST', '/budgets', {
    workspaceId: c.dataset.workspaceId,
    name: 'Bench plan',
    period: PERIOD,
    startDate: START,
    periods: PERIODS,
    lines,
  });
  try {
    const { first, last } = budgetWindow({ period: PERIOD, start_date: START, periods: PERIODS });
    const values = [budget.id, c.dataset.workspaceId, PERIOD, first, last];
    const report = () => call(c, 'GET', `/reports/budget-vs-actual?budgetId=${budget.id}`);
    const alone = () => client.query(BUDGET_VS_ACTUAL_SQL, values);
    const body = await report(); // warm-up, not counted; and a check that the report covers the window
    if (body.periods.length !== PERIODS) throw new Error(`budget-vs-actual: ${body.periods.length} periods, not ${PERIODS}`);
    await alone();
    const oursMs: number[] = [];
    const baseMs: number[] = [];
    const peak = c.server.watchRss();
    const oursRuns: Metered[] = [];
    for (let i = 0; i < c.settings.reportRuns; i++) {
      oursRuns.push(await metered(c, () => repeat(1, report)));
      oursMs.push(oursRuns[i].p50);
      baseMs.push((await repeat(1, alone)).p50);
    }
    return medianRow(
      `report budget-vs-actual (${PERIODS} months, ${lines.length} lines)`,
      oursMs,
      baseMs,
      peak(),
      1.25,
      'baseline: the same SQL statement alone with pg',
      oursRuns,
    );
  } finally {
    await call(c, 'DELETE', `/budgets/${budget.id}`);
  }
}
