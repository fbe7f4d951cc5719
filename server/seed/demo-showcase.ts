import { QueryTypes } from 'sequelize';
import { db } from '../db/database.js';
import type { Actor } from '../lib/scope.js';
import { createEntry, correctEntry } from '../domains/entries/index.js';
import { push, approveReview } from '../domains/accounting/index.js';
import { createUser } from '../domains/users/index.js';
import { addProjectMember, addMember } from '../domains/workspaces/index.js';
import { uploadDocument, approveDocument } from '../domains/documents/index.js';
import { makeReceiptPdf } from './demo-files.js';
import type { DemoWorkspace } from './demo-entries.js';

/** The demo's second user and its project-only member (CONTRACT §4); their passwords are never shown, an admin sets new ones. */
export const DEMO_PEOPLE = {
  bookkeeper: { email: 'bookkeeper@example.com', name: 'Bea Bookkeeper' },
  contractor: { email: 'contractor@example.com', name: 'Carl Contractor' },
};

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const randomPassword = () => `demo-${crypto.randomUUID()}`;

/**
 * What the rest of the demo does not show, through the services: an entry with line items and
 * payments (its invoice approved, its review approved, pushed to the MANUAL connection: a SYNCED
 * sync), a correction, a second
 * workspace member and a project-only member. Runs after the accounting seed (the connection and
 * the approved review) and after the demo webhook endpoint exists, so its events are delivered.
 */
export async function seedDemoShowcase(actor: Actor, ws: DemoWorkspace, today: Date): Promise<void> {
  const day = isoDay(today);
  const invoice = await createEntry(actor, {
    projectId: ws.projectIds[1]!,
    entryType: 'INCOME',
    baseCurrency: 'USD',
    amountCents: 360_000,
    entryDate: day,
    description: 'Workshop and follow-up sessions',
    reference: 'INV-ITEMS-0001',
    fromPartyId: ws.partyIds[2],
    toPartyId: ws.ownPartyId,
    items: [
      { description: 'Two-day workshop', quantity: 2, unitAmountCents: 120_000, amountCents: 240_000 },
      { description: 'Follow-up session', quantity: 4, unitAmountCents: 30_000, amountCents: 120_000 },
    ],
    transactions: [
      { transactionDate: day, amountCents: 200_000, method: 'bank transfer', externalRef: 'TRX-0001' },
      { transactionDate: day, amountCents: 160_000, method: 'bank transfer', externalRef: 'TRX-0002' },
    ],
  });
  // an expense typed wrong today and corrected at once: EUR (never on the USD demo statement), a
  // description no demo rule matches, dated today (the review queue's oldest entry stays the same)
  const typo = await createEntry(actor, {
    projectId: ws.projectIds[0]!,
    entryType: 'EXPENSE',
    baseCurrency: 'EUR',
    amountCents: 8_450,
    entryDate: isoDay(today),
    description: 'Team lunch',
    reference: 'BILL-CORR-0001',
    fromPartyId: ws.ownPartyId,
    toPartyId: ws.partyIds[5],
  });
  await correctEntry(actor, { id: typo.id, amountCents: 9_450, reason: 'Amount typed wrong: the bill says €94.50' });
  await bookAndPush(actor, ws, invoice.id, day);

  const bookkeeper = await createUser(actor, {
    ...DEMO_PEOPLE.bookkeeper,
    password: randomPassword(),
    permissions: ['entry.create', 'entry.edit', 'entry.note', 'accounting.review'],
  });
  await addMember(actor, { id: ws.workspaceId, userId: bookkeeper.id });
  const contractor = await createUser(actor, {
    ...DEMO_PEOPLE.contractor,
    password: randomPassword(),
    permissions: ['entry.create', 'entry.note'],
  });
  await addProjectMember(actor, { id: ws.projectIds[1]!, userId: contractor.id });
}

/**
 * The line-items invoice made complete (its PDF approved), its review approved and the entry
 * pushed to the MANUAL connection: a SYNCED sync, as a bookkeeper's day ends.
 */
async function bookAndPush(actor: Actor, ws: DemoWorkspace, entryId: number, day: string): Promise<void> {
  const pdf = await makeReceiptPdf({
    title: 'Invoice INV-ITEMS-0001',
    issuer: 'Demo Company',
    date: day,
    lines: [
      { description: 'Two-day workshop (2 × $1,200.00)', amount: '$2,400.00' },
      { description: 'Follow-up session (4 × $300.00)', amount: '$1,200.00' },
    ],
    total: '$3,600.00',
  });
  const doc = await uploadDocument(actor, {
    entryId,
    workspaceId: ws.workspaceId,
    documentType: 'BASIS',
    file: { bytes: pdf, fileName: 'INV-ITEMS-0001.pdf', declaredType: 'application/pdf' },
  });
  await approveDocument(actor, entryId, doc.id);
  const [review] = await db().query<{ id: string; connection_id: string }>(
    `SELECT id, connection_id FROM accounting_reviews WHERE workspace_id = :ws AND entry_id = :entryId AND status = 'QUEUED'`,
    { replacements: { ws: ws.workspaceId, entryId }, type: QueryTypes.SELECT },
  );
  if (!review) return;
  const [revenue] = await db().query<{ id: string }>(`SELECT id FROM accounting_categories WHERE workspace_id = :ws AND code = '4100'`, {
    replacements: { ws: ws.workspaceId },
    type: QueryTypes.SELECT,
  });
  await approveReview(actor, { id: review.id, categoryId: revenue?.id, notes: 'Invoice and payments checked' });
  await push(actor, { entryId, connectionId: review.connection_id });
}
