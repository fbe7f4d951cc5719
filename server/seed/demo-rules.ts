import { QueryTypes } from 'sequelize';
import { db } from '../db/database.js';
import type { Actor } from '../lib/scope.js';
import { applyRule, createRule } from '../domains/rules/index.js';
import type { DemoWorkspace } from './demo-entries.js';

/**
 * Three rules that categorise the demo entries (descriptions of demo-entries.ts, chart of
 * accounts of demo-accounting.ts), created through the rules service and applied to the entries
 * already there (but those in the review queue); new entries are categorised as they are created.
 */
export async function seedDemoRules(actor: Actor, ws: DemoWorkspace): Promise<void> {
  const categories = new Map(
    (
      await db().query<{ code: string; id: string }>('SELECT code, id FROM accounting_categories WHERE workspace_id = :ws', {
        replacements: { ws: ws.workspaceId },
        type: QueryTypes.SELECT,
      })
    ).map((c) => [c.code, c.id]),
  );
  const rules = [
    await createRule(actor, {
      workspaceId: ws.workspaceId,
      name: 'Rent',
      priority: 10,
      isActive: true,
      match: 'ALL',
      conditions: [
        { field: 'entryType', operator: 'eq', value: 'EXPENSE' },
        { field: 'description', operator: 'startsWith', value: 'office rent' },
      ],
      actions: [{ type: 'SET_CATEGORY', categoryId: categories.get('6100')! }],
      stopProcessing: true,
      triggers: ['CREATE', 'INGEST', 'BANK'],
    }),
    await createRule(actor, {
      workspaceId: ws.workspaceId,
      name: 'Software and hosting',
      priority: 20,
      isActive: true,
      match: 'ALL',
      conditions: [
        { field: 'entryType', operator: 'eq', value: 'EXPENSE' },
        { field: 'description', operator: 'matches', value: '^(cloud hosting|software licen[cs]es?)\\b' },
      ],
      actions: [{ type: 'SET_CATEGORY', categoryId: categories.get('6200')! }],
      stopProcessing: false,
      triggers: ['CREATE', 'INGEST', 'BANK'],
    }),
    await createRule(actor, {
      workspaceId: ws.workspaceId,
      name: 'Travel',
      priority: 30,
      isActive: true,
      match: 'ALL',
      conditions: [
        { field: 'entryType', operator: 'eq', value: 'EXPENSE' },
        { field: 'description', operator: 'matches', value: '\\b(flight|hotel|taxi|train)\\b' },
      ],
      actions: [{ type: 'SET_CATEGORY', categoryId: categories.get('6300')! }],
      stopProcessing: false,
      triggers: ['CREATE', 'INGEST', 'BANK'],
    }),
  ];
  // the entries in the demo review queue are left to their reviewers: a rule's edit would move a
  // CHANGES_REQUESTED review back to QUEUED (CONTRACT §5), and the demo shows every review state
  const [queue] = await db().query<{ first: string | null }>(
    `SELECT to_char(min(e.entry_date) - 1, 'YYYY-MM-DD') AS first
       FROM accounting_reviews r JOIN entries e ON e.workspace_id = r.workspace_id AND e.id = r.entry_id WHERE r.workspace_id = :ws`,
    { replacements: { ws: ws.workspaceId }, type: QueryTypes.SELECT },
  );
  for (const rule of rules) await applyRule(actor, { id: rule.id, ...(queue.first ? { toDate: queue.first } : {}) });
}
