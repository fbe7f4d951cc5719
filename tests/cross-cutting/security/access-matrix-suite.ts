import { z } from 'zod/v4';
import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../../server/db/database.js';
import { buildOpenApiDocument } from '../../../server/trpc/openapi.js';
import { accessPolicyOf, authedProcedure, permitted, publicProcedure } from '../../../server/trpc/procedures.js';
import { t } from '../../../server/trpc/init.js';
import { PERMISSIONS } from '../../../shared/permissions.js';
import { expectErrorBody, startServer, type Api, type ApiResponse } from '../../support/http.js';
import { buildUser, buildWorkspace, login } from '../../support/factories/index.js';
import { WorkspaceMember } from '../../../server/db/models/index.js';
import {
  bearerProtected,
  committedOpenApi,
  deriveOperations,
  openApiOperationKeys,
  operationKey,
  PUBLIC_OPERATIONS,
  requiredPermission,
  type Operation,
  type OpenApiDocument,
} from './operations.js';
import { buildProbeRequest, type ProbeRequest } from './probe-requests.js';
import { errorShapeProblem, inPool, leakedSecrets, send, type Credentials, type Transport } from './probes.js';
import { takeoverCases } from './takeover-cases.js';
import { buildTenants, type Caller, type Tenants } from './tenants.js';

/**
 * Issue 10 — the access matrix (shared by tests/cross-cutting/security/access-matrix.test.ts, REST, and the
 * long budget of npm run test:hard, REST and tRPC). Every operation of the service (derived from the tRPC router and
 * the documented express routes, cross-checked against openapi.json) is called, over REST and
 * over tRPC, by callers who must not get through: anonymous, an API key where a bearer token is
 * needed, a caller lacking the operation's permission, a member of another workspace and a
 * member of another project only — with the REAL ids of the attacked tenant's objects.
 * No probe may answer 2xx (except where the contract lets the caller see its own rows) and no
 * answer may carry any of the attacked tenant's data.
 */

export type AccessMatrixOptions = {
  /** REST reaches every operation; tRPC (/trpc) serves the same procedures a second time */
  transports: Transport[];
};

export function accessMatrixSuite(opts: AccessMatrixOptions): void {
  let api: Api;
  let tenants: Tenants;
  let operations: Operation[];
  let doc: OpenApiDocument;
  const counts: Record<string, number> = {};

  /**
   * Reads a project-only member may make with the workspace's id (CONTRACT §4: "lists, exports and
   * reports by workspaceId then contain only those projects"): 200, without the other project's rows.
   */
  const PROJECT_MEMBER_READS = new Set([
    'listProjects',
    'listEntries',
    'exportEntriesCsv',
    'exportReportPdf',
    'getSummaryReport',
    'getTimelineReport',
    'getByPartyReport',
    'getByTagReport',
    'getByProjectReport',
    'getFlowsReport',
    'getCalendarReport',
    'getDistributionReport',
    // CONTRACT §25: recurring entries are listed as entries are (project members: their projects')
    'listRecurringEntries',
  ]);

  /**
   * Batch operations answer 200 with a result per item (CONTRACT §8, §9): an item of another tenant
   * must fail exactly as an id that does not exist does — nothing done, nothing revealed.
   */
  const PER_ITEM_RESULTS: Record<string, (body: any) => boolean> = {
    batchApproveReviews: (b) => b.succeeded === 0 && b.failed === 1 && b.results.every((r: any) => r.success === false),
    batchRejectReviews: (b) => b.succeeded === 0 && b.failed === 1 && b.results.every((r: any) => r.success === false),
    retrySyncBatch: (b) => b.retried === 0 && b.failed === 1 && b.success === false,
  };

  beforeAll(async () => {
    api = await startServer(); // creates the app: the express routes are registered from here on
    doc = committedOpenApi();
    operations = deriveOperations(doc);
    tenants = await buildTenants(api);
  }, 120_000);

  afterAll(() => {
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    console.info(`access matrix: ${total} probes over ${operations.length} operations`, counts);
  });

  type Verdict = { op: Operation; transport: Transport; caller: string; res: ApiResponse; problem: string };
  /** What a probe expects: its error statuses, or (okWithoutLeak) a 2xx carrying none of the secrets but `hidden` ones. */
  type Expected = { statuses: number[]; okWithoutLeak?: boolean; hidden?: string[] };
  type Plan = Expected & { creds: Credentials };

  /** Runs one probe and returns what is wrong with its answer (nothing when it is as expected). */
  async function probe(
    op: Operation,
    transport: Transport,
    callerName: string,
    creds: Credentials,
    expected: Expected,
  ): Promise<Verdict | undefined> {
    const req = buildProbeRequest(op, tenants.victim.ids);
    counts[callerName] = (counts[callerName] ?? 0) + 1;
    const res = await send(api, transport, op, req, creds);
    const verdict = (problem: string): Verdict => ({ op, transport, caller: callerName, res, problem });
    const secrets = tenants.secrets.filter((s) => !(expected.hidden ?? []).includes(s));
    const leaks = leakedSecrets(res, req, secrets);
    if (leaks.length) return verdict(`answer carries the attacked tenant's data: ${leaks.join(', ')}`);
    if (res.status >= 200 && res.status < 300) {
      if (expected.okWithoutLeak) return undefined;
      const perItem = PER_ITEM_RESULTS[op.operationId];
      if (!perItem) return verdict('2xx');
      return perItem(unwrap(transport, res)) ? sameAsForUnknownIds(op, transport, creds, req, res, verdict) : verdict('an item succeeded');
    }
    if (!expected.statuses.includes(res.status)) return verdict(`expected ${expected.statuses.join('/')}`);
    return errorShapeProblem(transport, res) ? verdict(errorShapeProblem(transport, res)!) : undefined;
  }

  const unwrap = (transport: Transport, res: ApiResponse) => (transport === 'trpc' ? res.body?.result?.data : res.body);

  /** The same request with every id of the attacked tenant replaced by an id that exists nowhere must get the same answer. */
  async function sameAsForUnknownIds(
    op: Operation,
    transport: Transport,
    creds: Credentials,
    req: ProbeRequest,
    res: ApiResponse,
    verdict: (problem: string) => Verdict,
  ): Promise<Verdict | undefined> {
    const foreign = Object.values(tenants.victim.ids).filter((v): v is string => typeof v === 'string');
    const swap = (text: string) =>
      foreign.reduce((acc, id, i) => acc.replaceAll(id, `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`), text);
    const unknown: ProbeRequest = JSON.parse(swap(JSON.stringify(req)));
    const other = await send(api, transport, op, unknown, creds);
    if (other.status !== res.status || swap(res.text) !== other.text) {
      return verdict(`answers differently than for ids that do not exist: ${other.status} ${other.text.slice(0, 200)}`);
    }
    return undefined;
  }

  function report(verdicts: (Verdict | undefined)[]): string[] {
    return verdicts
      .filter((v): v is Verdict => !!v)
      .map((v) => `${v.caller} ${v.transport} ${v.op.method} ${v.op.path}: ${v.problem} (got ${v.res.status} ${v.res.text.slice(0, 200)})`);
  }

  function transportsOf(op: Operation): Transport[] {
    return opts.transports.filter((t) => t === 'rest' || op.source === 'trpc');
  }

  async function sweep(ops: Operation[], callerName: string, plan: (op: Operation) => Plan | Promise<Plan>): Promise<string[]> {
    const jobs = ops.flatMap((op) => transportsOf(op).map((transport) => ({ op, transport })));
    const verdicts: (Verdict | undefined)[] = [];
    await inPool(jobs, 6, async ({ op, transport }) => {
      const p = await plan(op);
      verdicts.push(await probe(op, transport, callerName, p.creds, p));
    });
    return report(verdicts);
  }

  describe('the probed surface is the whole API', () => {
    it('router procedures + express routes = the operations of openapi.json (committed and served), each classified', async () => {
      const derived = operations.map((o) => operationKey(o.method, o.path)).sort();
      expect(new Set(derived).size).toBe(derived.length);
      expect(derived).toEqual(openApiOperationKeys(doc));
      expect(openApiOperationKeys(buildOpenApiDocument() as unknown as OpenApiDocument)).toEqual(derived);
      expect(openApiOperationKeys((await api.get('/openapi.json')).body)).toEqual(derived);
      // every public operation declared in the suite exists (no stale expectations)
      expect(Object.keys(PUBLIC_OPERATIONS).filter((id) => !operations.some((o) => o.operationId === id))).toEqual([]);
      // every permission is enforced somewhere, so every "lacking" caller is exercised
      const enforced = new Set(operations.map(requiredPermission).filter(Boolean));
      expect(PERMISSIONS.filter((p) => !enforced.has(p))).toEqual([]);
      // every probe request can be built (no object kind in a path the suite does not know)
      for (const op of operations) expect(() => buildProbeRequest(op, tenants.victim.ids), op.operationId).not.toThrow();
    });

    it('a procedure not built from the procedures.ts builders cannot be classified (so the sweep refuses it)', () => {
      const input = z.object({});
      expect(accessPolicyOf(t.procedure.input(input).query(() => 1))).toBeUndefined();
      expect(accessPolicyOf(publicProcedure.input(input).query(() => 1))).toEqual({ kind: 'public' });
      expect(accessPolicyOf(authedProcedure.input(input).query(() => 1))).toEqual({ kind: 'authenticated' });
      expect(
        accessPolicyOf(
          permitted('entry.void')
            .input(input)
            .mutation(() => 1),
        ),
      ).toEqual({ kind: 'permission', permission: 'entry.void' });
    });
  });

  describe(`every bearer-protected operation (${opts.transports.join(', ')})`, () => {
    const protectedOps = () => operations.filter(bearerProtected);

    it('anonymous → 401', async () => {
      expect(await sweep(protectedOps(), 'anonymous', () => ({ creds: {}, statuses: [401] }))).toEqual([]);
    });

    it('an API key instead of a bearer token (as X-API-Key, and as the bearer) → 401', async () => {
      const asHeader = await sweep(protectedOps(), 'api-key header', () => ({
        creds: { headers: { 'X-API-Key': tenants.victim.apiKey } },
        statuses: [401],
      }));
      const asBearer = await sweep(protectedOps(), 'api-key as bearer', () => ({
        creds: { token: tenants.victim.apiKey },
        statuses: [401],
      }));
      expect([...asHeader, ...asBearer]).toEqual([]);
    });

    it('a member of the owning workspace lacking the permission → 403 (the permission is checked first)', async () => {
      const gated = operations.filter((o) => requiredPermission(o));
      const failures = await sweep(gated, 'lacking permission', (op) => ({
        creds: { token: tenants.lacking.get(requiredPermission(op)!)!.token },
        statuses: [403],
      }));
      expect(failures).toEqual([]);
    });

    /**
     * Tenant probes: the attacked tenant's ids → 403/404; an operation naming no tenant object → 2xx without its data
     * (for an API key also 403: a key has no session, and never holds user.*, workspace.create or apikey.manage).
     */
    async function tenantSweep(name: string, who: Caller | string, projectMember: boolean): Promise<string[]> {
      const isKey = typeof who === 'string';
      return sweep(protectedOps(), name, async (op) => {
        const req = buildProbeRequest(op, tenants.victim.ids);
        const hidden = projectMember ? tenants.visibleToProjectMember : [];
        if (!req.referencesTenant) {
          if (isKey) return { creds: { token: who }, statuses: [403], okWithoutLeak: true, hidden };
          // the caller's own things (me, its workspaces, logout…): a fresh session, since logout ends it
          return { creds: { token: await login(api, who) }, statuses: [], okWithoutLeak: true, hidden };
        }
        return {
          creds: { token: isKey ? who : who.token },
          statuses: [403, 404],
          okWithoutLeak: projectMember && PROJECT_MEMBER_READS.has(op.operationId),
          hidden,
        };
      });
    }

    it('a member of another workspace (every permission), with the real ids of the attacked tenant → 403/404, no data', async () => {
      expect(await tenantSweep('other workspace', tenants.attacker.member, false)).toEqual([]);
    });

    it('a member of another project of the workspace only (every permission) → 403/404, or its own rows only', async () => {
      expect(await tenantSweep('other project only', tenants.projectOnly, true)).toEqual([]);
    });

    it('an API key of the owning workspace lacking the permission → 403 (the permission is checked first)', async () => {
      const gated = operations.filter((o) => requiredPermission(o));
      const failures = await sweep(gated, 'key lacking permission', (op) => ({
        creds: { token: tenants.keys.lacking.get(requiredPermission(op)!)! },
        statuses: [403],
      }));
      expect(failures).toEqual([]);
    });

    it('an API key of another workspace (every permission a key may hold) → 403/404, no data', async () => {
      expect(await tenantSweep('other workspace key', tenants.keys.attacker, false)).toEqual([]);
    });

    it('an API key of another project of the workspace only → 403/404, or its own rows only', async () => {
      expect(await tenantSweep('other project key', tenants.keys.projectOnly, true)).toEqual([]);
    });

    /**
     * CONTRACT §4/§19: through a key only the key's workspace exists. The victim's own key (every permission a key may
     * hold, workspace.edit among them; made by the victim's admin) aimed at users of its creator's OTHER world: a
     * member of the admin's second workspace only, and a user the admin created that belongs nowhere. Every operation
     * naming a user (add/remove member, project member, update/deactivate user) and listing users → 403/404, never their email or
     * name. The control: the admin in person reaches both (so the 404s are the key's limits, not unknown ids).
     */
    it("the workspace's own key, with users of its creator's other workspace → 403/404, never their data", async () => {
      const { admin, ids } = tenants.victim;
      const second = await buildWorkspace({ members: [admin.id], name: 'Creator second workspace' });
      const elsewhere = await buildUser({ name: 'Second Workspace Only', email: `second-only-${Date.now()}@example.test` });
      await WorkspaceMember.create({ workspaceId: second.id, userId: elsewhere.id });
      const made = await api.post(
        '/users',
        {
          email: `created-by-admin-${Date.now()}@example.test`,
          name: 'Created By Admin',
          password: 'long-enough-password-1',
          permissions: [],
        },
        { token: admin.token },
      );
      expect(made.status, made.text).toBe(200);
      const targets = [
        { label: 'member of the second workspace', id: elsewhere.id, secrets: [elsewhere.email, 'Second Workspace Only'] },
        { label: 'created by the admin', id: made.body.id as string, secrets: [made.body.email as string, 'Created By Admin'] },
      ];
      const failures: string[] = [];
      for (const target of targets) {
        // the control: the key's creator, in person, sees the user
        const seen = await api.get('/users', { token: admin.token });
        expect(
          seen.body.map((u: { id: string }) => u.id),
          target.label,
        ).toContain(target.id);
        const aimed = { ...ids, userId: target.id };
        const ops = protectedOps().filter((op) => JSON.stringify(buildProbeRequest(op, aimed)).includes(target.id));
        expect(ops.map((o) => o.operationId)).toEqual(
          expect.arrayContaining(['addWorkspaceMember', 'addProjectMember', 'updateUser', 'deactivateUser']),
        );
        for (const op of [...ops, ...protectedOps().filter((o) => o.operationId === 'listUsers')]) {
          for (const transport of transportsOf(op)) {
            const req = buildProbeRequest(op, aimed);
            counts['key, users of another workspace'] = (counts['key, users of another workspace'] ?? 0) + 1;
            const res = await send(api, transport, op, req, { token: tenants.keys.victim.apiKey });
            const leaks = leakedSecrets(res, req, target.secrets);
            const bad = leaks.length
              ? `carries ${leaks.join(', ')}`
              : res.status < 300 && op.method !== 'GET'
                ? '2xx'
                : res.status >= 300 && ![403, 404].includes(res.status)
                  ? 'expected 403/404'
                  : res.status >= 300
                    ? errorShapeProblem(transport, res)
                    : undefined;
            if (bad)
              failures.push(`${target.label}: ${transport} ${op.method} ${op.path}: ${bad} (got ${res.status} ${res.text.slice(0, 200)})`);
          }
        }
        const memberships = await WorkspaceMember.count({ where: { workspaceId: ids.workspaceId, userId: target.id } });
        expect(memberships, `${target.label} never became a member of the key's workspace`).toBe(0);
      }
      expect(failures).toEqual([]);
    });

    it('the attacked tenant is intact: its owner still sees every object the probes aimed at', async () => {
      const key = await api.get(`/api-keys/${tenants.keys.victim.id}`, { token: tenants.victim.admin.token });
      expect(key.body).toMatchObject({ revokedAt: null, prefix: tenants.keys.victim.apiKey.slice(0, 16) });
      expect(
        (await api.get('/entries', { token: tenants.keys.victim.apiKey, query: { workspaceId: tenants.victim.ids.workspaceId } })).status,
      ).toBe(200);
      const { ids, admin } = tenants.victim;
      const t = { token: admin.token };
      const entry = await api.get(`/entries/${ids.entryId}`, t);
      expect(entry.status).toBe(200);
      expect(entry.body.entryStatus).toBe('UNDER_REVIEW');
      expect(entry.body.isReconciled).toBe(false);
      expect(entry.body.tags.map((x: { id: number }) => x.id)).toEqual([ids.tagId]);
      expect((await api.get(`/entries/${ids.entryId}/notes`, t)).body).toHaveLength(1);
      expect((await api.get(`/accounting/connections/${ids.connectionId}`, t)).body.isActive).toBe(true);
      expect((await api.get(`/accounting/reviews/${ids.reviewId}`, t)).body.status).toBe('QUEUED');
      expect((await api.get(`/accounting/periods/${ids.periodId}`, t)).body.status).toBe('OPEN');
      expect((await api.get('/integrations', { ...t, query: { workspaceId: ids.workspaceId } })).body.map((i: any) => i.isActive)).toEqual([
        true,
      ]);
      const members = await api.get(`/workspaces/${ids.workspaceId}/members`, t);
      expect(members.body.map((m: any) => m.userId ?? m.id)).toContain(admin.id);
      const [{ n }] = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM entries WHERE workspace_id = :ws', {
        replacements: { ws: ids.workspaceId },
        type: QueryTypes.SELECT,
      });
      expect(n).toBe(2); // the entry above and the one of the bank match
      const account = await api.get(`/bank-accounts/${ids.bankAccountId}`, t);
      expect(account.body).toMatchObject({ isActive: true, projectId: tenants.victim.projectIds[0] });
      const statements = await api.get(`/bank-accounts/${ids.bankAccountId}/statements`, t);
      expect(statements.body.map((s: any) => s.lineCount)).toEqual([2]);
      const lines = await api.get(`/bank-accounts/${ids.bankAccountId}/lines`, t);
      expect(lines.body.items.map((l: any) => [l.id, l.status, l.ignoredReason])).toEqual(
        expect.arrayContaining([
          [ids.bankLineId, 'UNMATCHED', null],
          [tenants.victim.bankLineIds[1], 'MATCHED', null],
        ]),
      );
      expect(lines.body.total).toBe(2);
      const match = await api.get(`/reconciliation/matches/${ids.bankMatchId}`, t);
      expect(match.body).toMatchObject({
        lineIds: [tenants.victim.bankLineIds[1]],
        entryIds: [tenants.victim.matchedEntryId],
        method: 'MANUAL',
      });
      expect((await api.get(`/entries/${tenants.victim.matchedEntryId}`, t)).body.isReconciled).toBe(true);
    });
  });

  takeoverCases(() => ({ api, tenants }), opts.transports);

  describe('public operations (their own expectations)', () => {
    it('login: wrong password for the attacked tenant’s user → 401 revealing nothing', async () => {
      const res = await api.post('/auth/login', { email: tenants.victim.admin.email, password: 'wrong-password-123' });
      counts['public'] = (counts['public'] ?? 0) + 1;
      expectErrorBody(res, 401, 'UNAUTHORIZED');
      const unsent = tenants.secrets.filter((s) => s !== tenants.victim.admin.email);
      expect(leakedSecrets(res, undefined, unsent)).toEqual([]);
    });

    it('refresh: without a token, or with an API key → 401', async () => {
      expectErrorBody(await api.post('/auth/refresh'), 401, 'UNAUTHORIZED');
      expectErrorBody(await api.post('/auth/refresh', undefined, { token: tenants.victim.apiKey }), 401, 'UNAUTHORIZED');
      expectErrorBody(await api.post('/auth/refresh', undefined, { headers: { 'X-API-Key': tenants.victim.apiKey } }), 401, 'UNAUTHORIZED');
      counts['public'] = (counts['public'] ?? 0) + 3;
    });

    it('ingest: no key or a bearer token → 401; another tenant’s key cannot write into the attacked project', async () => {
      const op = operations.find((o) => o.operationId === 'ingestEntries')!;
      const req = buildProbeRequest(op, tenants.victim.ids);
      const before = await entryCount();
      expectErrorBody(await send(api, 'rest', op, req, {}), 401, 'UNAUTHORIZED');
      expectErrorBody(await send(api, 'rest', op, req, { token: tenants.attacker.member.token }), 401, 'UNAUTHORIZED');
      const foreign = await send(api, 'rest', op, req, { headers: { 'X-API-Key': tenants.attacker.apiKey } });
      expect(foreign.status).toBe(200);
      expect(foreign.body).toMatchObject({ created: 0, failed: 1 });
      expect(foreign.body.results[0].status).toBe('ERROR');
      expect(leakedSecrets(foreign, req, tenants.secrets)).toEqual([]);
      expect(await entryCount()).toBe(before);
      counts['public'] = (counts['public'] ?? 0) + 3;
    });

    it('webhook: the attacked tenant’s connection without its secret (anonymous, or with a bearer token) → 401, nothing recorded', async () => {
      const op = operations.find((o) => o.operationId === 'receiveAccountingWebhook')!;
      const req = buildProbeRequest(op, tenants.victim.ids);
      req.body = { eventId: 'probe-1', action: 'ENTRY_VOIDED', entryId: tenants.victim.ids.entryId, reason: 'probe' };
      const before = await webhookRows();
      for (const creds of [{}, { token: tenants.attacker.member.token }, { headers: { 'X-API-Key': tenants.victim.apiKey } }]) {
        const res = await send(api, 'rest', op, req, creds);
        expectErrorBody(res, 401, 'UNAUTHORIZED');
        expect(leakedSecrets(res, req, tenants.secrets)).toEqual([]);
      }
      expect(await webhookRows()).toEqual(before);
      counts['public'] = (counts['public'] ?? 0) + 3;
    });

    it('the routes outside the API (health, readiness, OpenAPI, docs, metrics) answer without any tenant data', async () => {
      for (const path of ['/healthz', '/readyz', '/openapi.json', '/docs', '/metrics']) {
        const res = await api.get(path);
        expect(res.status, path).toBe(200);
        expect(leakedSecrets(res, undefined, tenants.secrets), path).toEqual([]);
      }
      counts['public'] = (counts['public'] ?? 0) + 5;
    });
  });

  describe('control: the same probes reach real objects', () => {
    /**
     * Run last (it changes the tenant's data): the attacked tenant's owner sends every probe request
     * above and must get past routing and access control, so the 403/404 the attackers got came from
     * the access checks, not from a malformed path or an id that does not exist. Reads go first,
     * deletions after the other writes, and those removing the owner's own access at the very end.
     */
    it('the owner of the objects gets neither 401, 403 nor 404 for any of them', async () => {
      const LAST = ['DELETE /projects/{id}/members/{userId}', 'DELETE /workspaces/{id}/members/{userId}', 'DELETE /users/{id}'];
      const rank = (op: Operation) => {
        const last = LAST.indexOf(operationKey(op.method, op.path));
        if (last >= 0) return 3 + last;
        return op.method === 'GET' ? 0 : op.method === 'DELETE' ? 2 : 1;
      };
      const ordered = operations.filter(bearerProtected).sort((a, b) => rank(a) - rank(b));
      const failures: string[] = [];
      for (const op of ordered) {
        const req = buildProbeRequest(op, tenants.victim.ids);
        const token = op.operationId === 'logout' ? await login(api, tenants.victim.admin) : tenants.victim.admin.token;
        const res = await send(api, 'rest', op, req, { token });
        counts['owner control'] = (counts['owner control'] ?? 0) + 1;
        if ([401, 403, 404].includes(res.status) || res.status >= 500) {
          failures.push(`${op.method} ${op.path}: ${res.status} ${res.text.slice(0, 200)}`);
        }
      }
      expect(failures).toEqual([]);
    });
  });

  async function entryCount(): Promise<number> {
    const [{ n }] = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM entries', { type: QueryTypes.SELECT });
    return n;
  }

  async function webhookRows(): Promise<Record<string, number>> {
    const [row] = await db().query<Record<string, number>>(
      `SELECT (SELECT count(*)::int FROM entry_events) AS events,
              (SELECT count(*)::int FROM entry_documents) AS documents,
              (SELECT count(*)::int FROM accounting_webhook_events) AS webhook_events,
              (SELECT entry_status FROM entries WHERE id = :id) AS status`,
      { replacements: { id: tenants.victim.ids.entryId }, type: QueryTypes.SELECT },
    );
    return row;
  }
}
