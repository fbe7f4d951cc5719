import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEntry, accountingWorld, createConnection, type AccountingWorld } from '../../support/factories/index.js';
import { events, getEntry } from '../../support/entries.js';
import { expectErrorBody, startServer, type Api } from '../../support/http.js';

/** CONTRACT §10: a connection with `projectIds` acts only on entries of those projects; any other entry is a 404. */
let api: Api;
let w: AccountingWorld;
let scoped: { id: string };
beforeAll(async () => {
  api = await startServer();
  w = await accountingWorld(api); // two projects
  scoped = await createConnection(w, { name: 'Project 2 books', projectIds: [w.projectIds[1]] });
});

const hook = (connectionId: string, body: Record<string, unknown>) =>
  api.request('POST', `/webhooks/accounting/${connectionId}`, {
    rawBody: JSON.stringify({ eventId: `evt-${randomUUID()}`, ...body }),
    headers: { 'Content-Type': 'application/json' },
  });

describe('inbound webhooks hold the connection scope (CONTRACT §10)', () => {
  it('no action of a project-2 connection reaches a project-1 entry; nothing is recorded', async () => {
    const outside = await createEntry(w, { projectId: w.projectIds[0] });
    const before = { entry: await getEntry(w, outside.id), events: await events(w, outside.id) };
    for (const action of ['ENTRY_APPROVED', 'ENTRY_REJECTED', 'ENTRY_VOIDED', 'ENTRY_UPDATED']) {
      expectErrorBody(await hook(scoped.id, { action, entryId: outside.id, reason: 'x' }), 404, 'NOT_FOUND');
    }
    expectErrorBody(
      await hook(scoped.id, { action: 'DOCUMENT_REQUESTED', entryId: outside.id, documentName: 'Receipt' }),
      404,
      'NOT_FOUND',
    );
    expect(await getEntry(w, outside.id)).toEqual(before.entry);
    expect(await events(w, outside.id)).toEqual(before.events);
  });

  it('entries of its projects are acted on, and a connection without projectIds reaches every project', async () => {
    const inside = await createEntry(w, { projectId: w.projectIds[1] });
    const ok = await hook(scoped.id, { action: 'ENTRY_APPROVED', entryId: inside.id });
    expect(ok.status, ok.text).toBe(200);
    expect((await getEntry(w, inside.id)).entryStatus).toBe('COMPLETED');
    const everywhere = await createConnection(w, { name: 'All books' });
    const outside = await createEntry(w, { projectId: w.projectIds[0] });
    expect((await hook(everywhere.id, { action: 'ENTRY_APPROVED', entryId: outside.id })).status).toBe(200);
  });
});
