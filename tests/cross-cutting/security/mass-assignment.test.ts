import { beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../../server/db/database.js';
import { expectErrorBody, startServer, type ApiResponse } from '../../support/http.js';
import { loadOperations, type Operation } from './fuzz-operations.js';
import { concretePath } from './fuzz-requests.js';
import { PRIVILEGED_FIELDS } from './fuzz-values.js';
import { buildFuzzWorld, type FuzzWorld } from './fuzz-world.js';

/**
 * Mass assignment: a client adding server-owned or privileged fields (ids, owners, statuses,
 * permissions, hashes, timestamps, …) to a write body must be refused (strict bodies, 400 naming
 * the fields) and nothing of the request may take effect (checked in the database).
 */

let world: FuzzWorld;
const probes = { requests: 0, fields: 0 };

beforeAll(async () => {
  world = await buildFuzzWorld(await startServer());
}, 120_000);

type Row = Record<string, unknown>;
const one = async (sql: string, replacements: Record<string, unknown>): Promise<Row> =>
  (await db().query<Row>(sql, { replacements, type: QueryTypes.SELECT }))[0];
const count = async (table: string) => Number((await one(`SELECT count(*) AS n FROM ${table}`, {})).n);

function unrecognizedKeys(res: ApiResponse): string[] {
  const issues = (res.body?.issues ?? []) as { code?: string; keys?: string[] }[];
  return issues.filter((i) => i.code === 'unrecognized_keys').flatMap((i) => i.keys ?? []);
}

/** Sends `body` as raw JSON text (so `__proto__` stays a key) and expects a 400 naming `fields`. */
async function expectRefused(method: string, url: string, body: string, fields: string[], headers: Record<string, string> = {}) {
  probes.requests++;
  probes.fields += fields.length;
  const res = await world.api.request(method, url, {
    rawBody: body,
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${world.token}`, ...headers },
  });
  expectErrorBody(res, 400, 'BAD_REQUEST');
  expect(unrecognizedKeys(res).sort(), `${method} ${url}`).toEqual(expect.arrayContaining([...fields].sort()));
  return res;
}

const jsonOps = () => loadOperations().filter((op) => op.body?.kind === 'json' && op.auth !== 'apiKey' && !op.path.startsWith('/auth/'));

describe('every JSON write body of openapi.json refuses privileged fields', () => {
  it.each(jsonOps().map((op) => ({ op, name: `${op.method} ${op.path}` })))('$name', async ({ op }: { op: Operation }) => {
    // a body field named like a path parameter is replaced by the path's value (trpc-to-openapi merges them)
    // a body that is a union (EntryStatusChange) owns the fields of each of its variants
    const shapes = [op.body!.schema, ...(op.body!.schema.oneOf ?? [])];
    const own = new Set([...shapes.flatMap((s) => Object.keys(s.properties ?? {})), ...op.pathParams.map((p) => p.name)]);
    const extra = Object.fromEntries(Object.entries(PRIVILEGED_FIELDS).filter(([k]) => !own.has(k)));
    const text = JSON.stringify(extra);
    const withProto = `${text.slice(0, -1)}${text.length > 2 ? ',' : ''}"__proto__":{"isAdmin":true}}`;
    const headers: Record<string, string> = op.path.startsWith('/webhooks/') ? { 'X-Webhook-Secret': world.webhookSecret } : {};
    await expectRefused(op.method, concretePath(op, world), withProto, [...Object.keys(extra), '__proto__'], headers);
  });

  it('the request-level probes ran against every JSON write', () => {
    expect(probes.requests).toBeGreaterThanOrEqual(jsonOps().length);
  });
});

describe('valid writes plus privileged fields change nothing', () => {
  it('POST /entries: no entry is created, not even with a valid body', async () => {
    const [projectId] = world.tables.projects as number[];
    const before = await count('entries');
    const valid = { projectId, entryType: 'EXPENSE', amountCents: 1234, baseCurrency: 'USD', entryDate: '2026-06-10' };
    for (const [field, value] of Object.entries(PRIVILEGED_FIELDS)) {
      await expectRefused('POST', '/entries', JSON.stringify({ ...valid, [field]: value }), [field]);
    }
    await expectRefused(
      'POST',
      '/entries',
      JSON.stringify({ ...valid, items: [{ description: 'x', quantity: 1, unitAmountCents: 1234, entryId: 1, id: 5 }] }),
      ['entryId', 'id'],
    );
    expect(await count('entries')).toBe(before);
  });

  it('PATCH /entries/{id}: status, owner, reconciliation and workspace stay as they were', async () => {
    const id = (world.tables.entries as number[])[0];
    const before = await one('SELECT * FROM entries WHERE id = :id', { id });
    for (const field of ['entryStatus', 'status', 'createdBy', 'workspaceId', 'isReconciled', 'reconciledBy', 'createdAt', 'version']) {
      await expectRefused('PATCH', `/entries/${id}`, JSON.stringify({ description: 'changed?', [field]: PRIVILEGED_FIELDS[field] }), [
        field,
      ]);
    }
    expect(await one('SELECT * FROM entries WHERE id = :id', { id })).toEqual(before);
  });

  it('POST /users and PATCH /users/{id}: no hash, admin flag or id can be set', async () => {
    const before = await count('users');
    const valid = { email: 'mass@example.test', name: 'Mass', password: 'a-long-password-1', permissions: [] };
    for (const field of ['passwordHash', 'isAdmin', 'role', 'id', 'createdAt', 'apiKeyHash']) {
      await expectRefused('POST', '/users', JSON.stringify({ ...valid, [field]: PRIVILEGED_FIELDS[field] }), [field]);
    }
    expect(await count('users')).toBe(before);
    const victim = (world.tables.users as string[])[0];
    const row = await one('SELECT * FROM users WHERE id = :victim', { victim });
    for (const field of ['passwordHash', 'isAdmin', 'email', 'createdAt']) {
      const value = field === 'email' ? 'stolen@example.test' : PRIVILEGED_FIELDS[field];
      await expectRefused('PATCH', `/users/${victim}`, JSON.stringify({ name: 'renamed?', [field]: value }), [field]);
    }
    expect(await one('SELECT * FROM users WHERE id = :victim', { victim })).toEqual(row);
  });

  it('workspace, project, party and tag updates cannot move an object to another workspace', async () => {
    const other = world.otherWorkspaceId;
    const cases: [string, string, number][] = [
      ['projects', '/projects', (world.tables.projects as number[])[0]],
      ['parties', '/parties', (world.tables.parties as number[])[0]],
      ['tags', '/tags', (world.tables.tags as number[])[0]],
    ];
    for (const [table, base, id] of cases) {
      const before = await one(`SELECT * FROM ${table} WHERE id = :id`, { id });
      await expectRefused('PATCH', `${base}/${id}`, JSON.stringify({ name: `moved-${table}`, workspaceId: other }), ['workspaceId']);
      await expectRefused('PATCH', `${base}/${id}`, JSON.stringify({ name: `moved-${table}`, createdAt: '2000-01-01T00:00:00Z' }), [
        'createdAt',
      ]);
      expect(await one(`SELECT * FROM ${table} WHERE id = :id`, { id })).toEqual(before);
    }
    const ws = await one('SELECT * FROM workspaces WHERE id = :id', { id: world.workspaceId });
    await expectRefused(
      'PATCH',
      `/workspaces/${world.workspaceId}`,
      JSON.stringify({ name: 'x', createdBy: PRIVILEGED_FIELDS.createdBy }),
      ['createdBy'],
    );
    expect(await one('SELECT * FROM workspaces WHERE id = :id', { id: world.workspaceId })).toEqual(ws);
  });

  it('a body `id` beside a path `{id}` is overridden by the path: it never reaches another object', async () => {
    const [mine, another] = world.tables.tags as number[];
    const untouched = await one('SELECT * FROM tags WHERE id = :another', { another });
    const res = await world.api.patch(`/tags/${mine}`, { name: 'renamed-by-path', id: another }, { token: world.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: mine, name: 'renamed-by-path' });
    expect(await one('SELECT * FROM tags WHERE id = :another', { another })).toEqual(untouched);
    const otherWs = await world.api.patch(
      `/workspaces/${world.otherWorkspaceId}`,
      { name: 'hijack', id: world.workspaceId },
      { token: world.token },
    );
    expectErrorBody(otherWs, 404, 'NOT_FOUND'); // the path decides, and the caller is no member of that workspace
  });

  it('connections and integrations: no hash, key, owner or status field can be written', async () => {
    const connections = await count('accounting_connections');
    const integrations = await count('integrations');
    const conn = { workspaceId: world.workspaceId, providerType: 'MANUAL', name: 'mass', credentials: { apiKey: 'mass-credential' } };
    for (const field of ['isActive', 'createdBy', 'id', 'credentialsEncrypted', 'lastSyncAt']) {
      await expectRefused(
        'POST',
        '/accounting/connections',
        JSON.stringify({ ...conn, [field]: PRIVILEGED_FIELDS[field] ?? '2000-01-01' }),
        [field],
      );
    }
    const integration = { workspaceId: world.workspaceId, name: 'mass' };
    for (const field of ['keyHash', 'apiKey', 'keyPrefix', 'isActive', 'revokedAt', 'createdBy', 'entrySourceId']) {
      await expectRefused('POST', '/integrations', JSON.stringify({ ...integration, [field]: PRIVILEGED_FIELDS[field] ?? 'fes_live_x' }), [
        field,
      ]);
    }
    expect(await count('accounting_connections')).toBe(connections);
    expect(await count('integrations')).toBe(integrations);
  });

  it('reviews and status changes: no reviewer, approver or actor can be claimed', async () => {
    const review = (world.tables.reviews as string[])[0];
    const before = await one('SELECT * FROM accounting_reviews WHERE id = :review', { review });
    for (const field of ['approvedBy', 'reviewerId', 'status', 'decidedAt', 'actorType']) {
      await expectRefused('PATCH', `/accounting/reviews/${review}/approve`, JSON.stringify({ [field]: PRIVILEGED_FIELDS[field] ?? 'x' }), [
        field,
      ]);
    }
    expect(await one('SELECT * FROM accounting_reviews WHERE id = :review', { review })).toEqual(before);
    const id = (world.tables.entries as number[])[1];
    const events = await count('entry_events');
    await expectRefused('PATCH', `/entries/${id}/status`, JSON.stringify({ status: 'PENDING', actorType: 'SYSTEM', actorId: 'x' }), [
      'actorType',
      'actorId',
    ]);
    await expectRefused('POST', `/entries/${id}/notes`, JSON.stringify({ content: 'hi', createdBy: PRIVILEGED_FIELDS.createdBy }), [
      'createdBy',
    ]);
    expect(await count('entry_events')).toBe(events);
  });

  it('ingest: privileged fields on an item are refused and no entry is written', async () => {
    const before = await count('entries');
    const [projectId] = world.tables.projects as number[];
    const item = { externalId: 'mass-1', projectId, entryType: 'INCOME', amountCents: 100, baseCurrency: 'USD', entryDate: '2026-06-10' };
    for (const field of ['entryStatus', 'createdBy', 'isReconciled', 'workspaceId', 'entrySourceId', 'id']) {
      probes.requests++;
      const res = await world.api.post(
        '/api/v1/ingest',
        { entries: [{ ...item, [field]: PRIVILEGED_FIELDS[field] ?? 1 }] },
        { headers: { 'X-API-Key': world.apiKey } },
      );
      if (res.status === 400) expectErrorBody(res, 400, 'BAD_REQUEST');
      else expect(res.body.results?.[0]?.status, res.text).toBe('ERROR');
    }
    expect(await count('entries')).toBe(before);
  });
});
