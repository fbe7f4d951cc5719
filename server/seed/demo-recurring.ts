import { QueryTypes } from 'sequelize';
import { db } from '../db/database.js';
import type { Actor } from '../lib/scope.js';
import { createRecurring, runRecurring } from '../domains/recurring/index.js';
import { createBudget } from '../domains/budgets/index.js';
import type { DemoWorkspace } from './demo-entries.js';

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const monthStart = (today: Date, monthsBack: number) =>
  isoDay(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - monthsBack, 1)));

/**
 * CONTRACT §25 in the demo: a monthly office rent (the 1st) and a salary (the last working day of the month), made
 * through the recurring entries service and run up to today, and a monthly budget of the year with a line for the
 * whole workspace's expenses, one for rent and one for income.
 */
export async function seedDemoRecurring(actor: Actor, ws: DemoWorkspace, today: Date): Promise<void> {
  const [rent] = await db().query<{ id: string }>(`SELECT id FROM accounting_categories WHERE workspace_id = :ws AND code = '6100'`, {
    replacements: { ws: ws.workspaceId },
    type: QueryTypes.SELECT,
  });
  const recurring = [
    await createRecurring(actor, {
      projectId: ws.projectIds[0],
      template: {
        entryType: 'EXPENSE',
        amountCents: 240_000,
        baseCurrency: 'USD',
        fromPartyId: ws.ownPartyId,
        toPartyId: ws.partyIds[0],
        description: 'Office rent (monthly)',
        reference: 'LEASE-2026',
        categoryId: rent?.id,
      },
      rrule: 'FREQ=MONTHLY;BYMONTHDAY=1',
      startDate: monthStart(today, 3),
    }),
    await createRecurring(actor, {
      projectId: ws.projectIds[0],
      template: {
        entryType: 'EXPENSE',
        amountCents: 520_000,
        baseCurrency: 'USD',
        fromPartyId: ws.ownPartyId,
        toPartyId: ws.partyIds[1],
        description: 'Salary, operations lead',
      },
      rrule: 'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1',
      startDate: monthStart(today, 3),
    }),
  ];
  for (const r of recurring) await runRecurring(actor, { id: r.id, through: isoDay(today) });
  await createBudget(actor, {
    workspaceId: ws.workspaceId,
    name: 'Operating plan',
    period: 'MONTH',
    startDate: monthStart(today, 11),
    periods: 12,
    lines: [
      { entryType: 'EXPENSE', amountCents: 3_000_000 },
      ...(rent ? [{ entryType: 'EXPENSE' as const, categoryId: rent.id, amountCents: 240_000 }] : []),
      { entryType: 'INCOME', amountCents: 5_000_000 },
    ],
  });
}
