import { pgClientConfig, transaction } from '../db/database.js';
import { withStartupLock } from '../db/startup-lock.js';
import { clock } from '../lib/clock.js';
import { seedActor, seedDemoEntries } from './demo-entries.js';
import { seedDemoDocuments } from './demo-documents.js';
import { seedDemoAccounting } from './demo-accounting.js';
import { seedDemoBooks, seedDemoChart } from './demo-books.js';
import { seedDemoBanking } from './demo-banking.js';
import { seedDemoWebhooks } from './demo-webhooks.js';
import { seedDemoRules } from './demo-rules.js';
import { seedDemoRecurring } from './demo-recurring.js';
import { seedDemoFxRates } from './demo-fx.js';
import { seedDemoApiKey } from './demo-api-key.js';
import { seedDemoShowcase } from './demo-showcase.js';
import { EntrySource, Party, Project, Tag, User, Workspace, WorkspaceMember } from '../db/models/index.js';

const PARTIES: [string, 'PERSON' | 'ORGANIZATION', string][] = [
  ['Acme Supplies GmbH', 'ORGANIZATION', 'DE'],
  ['Northwind Traders', 'ORGANIZATION', 'US'],
  ['Globex Consulting', 'ORGANIZATION', 'GB'],
  ['Initech Software', 'ORGANIZATION', 'US'],
  ['Jane Doe', 'PERSON', 'US'],
  ['Studio Blanc SARL', 'ORGANIZATION', 'FR'],
];
const TAGS: [string, string][] = [
  ['travel', '#1f77b4'],
  ['software', '#ff7f0e'],
  ['office', '#2ca02c'],
  ['consulting', '#d62728'],
  ['marketing', '#9467bd'],
];

/** `apiKey`: the demo app key's secret, known only to the instance that seeded (printed once, as the admin password). */
export type DemoSeed = { seeded: boolean; workspaceId?: number; apiKey?: string };

/**
 * A demo workspace with realistic data, created only on an empty database, by one of the
 * instances that start on it at once (the others find it there).
 */
export function seedDemo(adminEmail: string, today = clock.now(), opts: DemoOptions = {}): Promise<DemoSeed> {
  return withStartupLock(pgClientConfig(), 'demo seed', () => seedEmptyDatabase(adminEmail, today, opts));
}

/** `webhookReceiverUrl`: the demo's own loopback receiver (server/seed/demo-webhook-receiver.ts), when the service runs one. */
export type DemoOptions = { webhookReceiverUrl?: string | null };

async function seedEmptyDatabase(adminEmail: string, today: Date, opts: DemoOptions): Promise<DemoSeed> {
  if ((await Workspace.count()) > 0) return { seeded: false };
  const admin = await User.findOne({ where: { email: adminEmail.toLowerCase() } });
  const base = await transaction(async (tx) => {
    const ws = await Workspace.create({ name: 'Demo Company', baseCurrency: 'USD', createdBy: admin?.id ?? null }, { transaction: tx });
    if (admin) await WorkspaceMember.create({ workspaceId: ws.id, userId: admin.id }, { transaction: tx });
    await EntrySource.create({ workspaceId: ws.id, kind: 'MANUAL', name: 'Manual' }, { transaction: tx });
    const projects = await Project.bulkCreate(
      [
        { workspaceId: ws.id, name: 'Operations', code: 'OPS' },
        { workspaceId: ws.id, name: 'Client Work', code: 'CLIENT' },
        { workspaceId: ws.id, name: 'Research', code: 'RND' },
      ],
      { transaction: tx, returning: true },
    );
    const own = await Party.create(
      { workspaceId: ws.id, name: 'Demo Company', partyType: 'ORGANIZATION', country: 'US' },
      { transaction: tx },
    );
    const parties = await Party.bulkCreate(
      PARTIES.map(([name, partyType, country]) => ({ workspaceId: ws.id, name, partyType, country })),
      { transaction: tx, returning: true },
    );
    const tags = await Tag.bulkCreate(
      TAGS.map(([name, color]) => ({ workspaceId: ws.id, name, color })),
      { transaction: tx, returning: true },
    );
    return {
      workspaceId: ws.id,
      projectIds: projects.map((p) => p.id),
      partyIds: parties.map((p) => p.id),
      tagIds: tags.map((t) => t.id),
      ownPartyId: own.id,
    };
  });
  if (admin) {
    await seedDemoFxRates(base, today); // before the entries: each is valued when created (CONTRACT §17)
    const accounts = await seedDemoChart(seedActor(admin.id, base.workspaceId), base); // before the entries: they post to it (§23)
    // Later domains add their part of the demo data after the entries (documents, accounting …).
    await seedDemoEntries(seedActor(admin.id, base.workspaceId), base, today);
    await seedDemoDocuments(seedActor(admin.id, base.workspaceId), base);
    await seedDemoAccounting(seedActor(admin.id, base.workspaceId), base, accounts);
    await seedDemoBanking(seedActor(admin.id, base.workspaceId), base);
    await seedDemoRules(seedActor(admin.id, base.workspaceId), base);
    await seedDemoBooks(seedActor(admin.id, base.workspaceId), base, accounts, today);
    await seedDemoRecurring(seedActor(admin.id, base.workspaceId), base, today); // CONTRACT §25: rent, salary, a budget
    await seedDemoWebhooks(admin.id, base, opts.webhookReceiverUrl ?? null); // before the showcase: its events are delivered
    await seedDemoShowcase(seedActor(admin.id, base.workspaceId), base, today);
    const apiKey = await seedDemoApiKey(seedActor(admin.id, base.workspaceId), base.workspaceId);
    return { seeded: true, workspaceId: base.workspaceId, apiKey };
  }
  return { seeded: true, workspaceId: base.workspaceId };
}
