import { PERMISSIONS } from '../../shared/permissions.js';
import type { Actor } from '../lib/scope.js';
import { createEntry, reconcileEntry, changeStatus, refundEntry, reimburseEntry, addNote } from '../domains/entries/index.js';
import { closePeriod, createPeriod } from '../domains/periods/index.js';

export type DemoWorkspace = { workspaceId: number; projectIds: number[]; partyIds: number[]; tagIds: number[]; ownPartyId: number };

/** A deterministic generator, so every demo database looks the same. */
function random(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

const EXPENSES = [
  'Office rent',
  'Cloud hosting',
  'Laptop',
  'Team lunch',
  'Flight to client',
  'Software licences',
  'Accounting fees',
  'Printer paper',
];
const INCOMES = ['Consulting retainer', 'Project milestone', 'Workshop fee', 'Licence sale', 'Support contract'];
const CURRENCIES = ['USD', 'USD', 'USD', 'EUR', 'EUR', 'GBP', 'JPY'];

export function seedActor(userId: string, workspaceId: number): Actor {
  return {
    kind: 'USER',
    userId,
    sessionId: '00000000-0000-4000-8000-000000000000',
    email: 'seed@localhost',
    name: 'Demo seed',
    permissions: new Set(PERMISSIONS),
    workspaceIds: new Set([workspaceId]),
    projectWorkspace: new Map(),
  };
}

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/** About a year of entries through the real services: both types, several currencies, refunds, a closed period. */
export async function seedDemoEntries(actor: Actor, ws: DemoWorkspace, today: Date): Promise<void> {
  const rnd = random(20260101);
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  const start = new Date(Date.UTC(today.getUTCFullYear() - 1, today.getUTCMonth(), 1));
  const created: { id: number; type: 'INCOME' | 'EXPENSE'; amount: number }[] = [];
  for (let day = new Date(start); day <= today; day = new Date(day.getTime() + 86_400_000 * (1 + Math.floor(rnd() * 3)))) {
    const income = rnd() < 0.35;
    const currency = pick(CURRENCIES);
    const scale = currency === 'JPY' ? 1 : 100;
    const amount = Math.round((income ? 800 + rnd() * 9000 : 15 + rnd() * 2500) * scale);
    const counterparty = pick(ws.partyIds);
    const entry = await createEntry(actor, {
      projectId: pick(ws.projectIds),
      entryType: income ? 'INCOME' : 'EXPENSE',
      baseCurrency: currency,
      amountCents: amount,
      entryDate: isoDay(day),
      description: income ? pick(INCOMES) : pick(EXPENSES),
      reference: `${income ? 'INV' : 'BILL'}-${day.getUTCFullYear()}-${String(created.length + 1).padStart(4, '0')}`,
      fromPartyId: income ? counterparty : ws.ownPartyId,
      toPartyId: income ? ws.ownPartyId : counterparty,
      tagIds: rnd() < 0.6 ? [pick(ws.tagIds)] : [],
    });
    created.push({ id: entry.id, type: entry.entryType, amount });
    const age = (today.getTime() - day.getTime()) / 86_400_000;
    if (age > 45 && rnd() < 0.7) await changeStatus(actor, { id: entry.id, status: 'COMPLETED' });
    if (age > 30 && rnd() < 0.5) await reconcileEntry(actor, entry.id, true);
  }
  const expenses = created.filter((e) => e.type === 'EXPENSE');
  await refundEntry(actor, { id: expenses[3].id, amountCents: expenses[3].amount, description: 'Returned laptop' });
  await refundEntry(actor, { id: expenses[10].id, amountCents: Math.floor(expenses[10].amount / 2), description: 'Partial credit' });
  await reimburseEntry(actor, {
    id: expenses[5].id,
    amountCents: expenses[5].amount,
    fromPartyId: ws.partyIds[0],
    toPartyId: ws.ownPartyId,
    description: 'Travel cost reimbursed by client',
  });
  await addNote(actor, created[0].id, 'Checked against the bank statement.');
  // the first quarter of the year is closed
  const qStart = start;
  const qEnd = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 3, 0));
  const period = await createPeriod(actor, {
    workspaceId: ws.workspaceId,
    name: `Q ${isoDay(qStart)} – ${isoDay(qEnd)}`,
    startDate: isoDay(qStart),
    endDate: isoDay(qEnd),
  });
  await closePeriod(actor, period.id);
}
