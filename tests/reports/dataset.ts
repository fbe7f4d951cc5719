import { expect } from 'vitest';
import { actor, buildWorkspace } from '../support/factories/index.js';
import type { Api, ApiResponse } from '../support/http.js';

/**
 * The hand-computed report dataset, built through the API. Every expected figure in the
 * report tests is worked out by hand from this table.
 *
 * Parties: Acme (ORGANIZATION, DE), Globex (PERSON, US), Initech (ORGANIZATION, no country).
 * Tags (created in this order, so ascending ids): alpha < beta < gamma.
 * Projects: P1 "Project 1", P2 "Project 2".
 *
 * | name | proj | type    | amount | cur | date       | from → to         | tags (as sent)      | status       |
 * | E1   | P1   | INCOME  | 100    | USD | 2026-12-31 | Acme → Globex     | gamma, alpha, beta  | PENDING      |
 * | E2   | P1   | EXPENSE | 251    | USD | 2027-01-01 | Globex → Initech  | gamma, beta         | PENDING      |
 * | E3   | P1   | EXPENSE | 1000   | EUR | 2027-01-04 | Acme → –          | alpha               | COMPLETED    |
 * | E4   | P1   | INCOME  | 5      | EUR | 2027-01-31 | – → Acme          | alpha, beta, gamma  | UNDER_REVIEW |
 * | E5   | P1   | INCOME  | 5000   | USD | 2027-02-01 | Globex → Acme     | –                   | PENDING      |
 * | E6   | P2   | EXPENSE | 333    | JPY | 2027-01-01 | Initech → Globex  | gamma               | PENDING      |
 * | E7   | P2   | INCOME  | 1      | USD | 2027-03-15 | Initech → Globex  | –                   | COMPLETED    |
 * | X1   | P1   | INCOME  | 999999 | USD | 2027-01-02 | Acme → Globex     | alpha               | VOIDED       |
 * | X2   | P1   | EXPENSE | 888888 | USD | 2027-01-02 | Globex → –        | beta                | REJECTED     |
 * | X3   | P2   | INCOME  | 777777 | EUR | 2027-01-03 | – → Initech       | gamma               | CANCELLED    |
 *
 * X1–X3 must never be counted. 2026-12-31 (Thu) and 2027-01-01 (Fri) are both ISO week
 * 2026-W53; 2027-01-04 is 2027-W01. A second workspace holds an entry that must not leak in.
 */
export type Dataset = {
  api: Api;
  workspaceId: number;
  token: string;
  ownerId: string;
  P1: number;
  P2: number;
  acme: number;
  globex: number;
  initech: number;
  alpha: number;
  beta: number;
  gamma: number;
  otherWorkspaceId: number;
  /** entry ids by their name in the table above */
  entries: Record<'E1' | 'E2' | 'E3' | 'E4' | 'E5' | 'E6' | 'E7', number>;
};

function ok(res: ApiResponse, what: string): any {
  if (res.status !== 200 && res.status !== 201) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res.body;
}

export async function buildDataset(api: Api): Promise<Dataset> {
  const ws = await buildWorkspace({ projects: 2, name: 'Northwind Trading' });
  const owner = await actor(api, { workspaceId: ws.id });
  const token = owner.token;
  const [P1, P2] = ws.projectIds;
  const party = async (name: string, partyType: string, country?: string) =>
    ok(await api.post('/parties', { workspaceId: ws.id, name, partyType, ...(country ? { country } : {}) }, { token }), `party ${name}`)
      .id as number;
  const tag = async (name: string) => ok(await api.post('/tags', { workspaceId: ws.id, name }, { token }), `tag ${name}`).id as number;
  const acme = await party('Acme', 'ORGANIZATION', 'DE');
  const globex = await party('Globex', 'PERSON', 'US');
  const initech = await party('Initech', 'ORGANIZATION');
  const alpha = await tag('alpha');
  const beta = await tag('beta');
  const gamma = await tag('gamma');
  expect(alpha < beta && beta < gamma).toBe(true);

  const entry = async (body: Record<string, unknown>) =>
    ok(await api.post('/entries', body, { token }), `entry ${JSON.stringify(body)}`).id as number;
  const status = async (id: number, to: string, reason?: string) =>
    ok(await api.patch(`/entries/${id}/status`, reason ? { status: to, reason } : { status: to }, { token }), `status ${to}`);

  const e = (
    projectId: number,
    entryType: string,
    amountCents: number,
    baseCurrency: string,
    entryDate: string,
    from: number | null,
    to: number | null,
    tagIds: number[],
  ) =>
    entry({
      projectId,
      entryType,
      amountCents,
      baseCurrency,
      entryDate,
      ...(from ? { fromPartyId: from } : {}),
      ...(to ? { toPartyId: to } : {}),
      ...(tagIds.length ? { tagIds } : {}),
    });

  const entries = {
    E1: await e(P1, 'INCOME', 100, 'USD', '2026-12-31', acme, globex, [gamma, alpha, beta]),
    E2: await e(P1, 'EXPENSE', 251, 'USD', '2027-01-01', globex, initech, [gamma, beta]),
    E3: await e(P1, 'EXPENSE', 1000, 'EUR', '2027-01-04', acme, null, [alpha]),
    E4: await e(P1, 'INCOME', 5, 'EUR', '2027-01-31', null, acme, [alpha, beta, gamma]),
    E5: await e(P1, 'INCOME', 5000, 'USD', '2027-02-01', globex, acme, []),
    E6: await e(P2, 'EXPENSE', 333, 'JPY', '2027-01-01', initech, globex, [gamma]),
    E7: await e(P2, 'INCOME', 1, 'USD', '2027-03-15', initech, globex, []),
  };
  await status(entries.E3, 'COMPLETED');
  await status(entries.E4, 'UNDER_REVIEW');
  await status(entries.E7, 'COMPLETED');

  const x1 = await e(P1, 'INCOME', 999_999, 'USD', '2027-01-02', acme, globex, [alpha]);
  ok(await api.post(`/entries/${x1}/void`, { reason: 'duplicate' }, { token }), 'void X1');
  await status(await e(P1, 'EXPENSE', 888_888, 'USD', '2027-01-02', globex, null, [beta]), 'REJECTED', 'not ours');
  await status(await e(P2, 'INCOME', 777_777, 'EUR', '2027-01-03', null, initech, [gamma]), 'CANCELLED', 'withdrawn');

  const other = await buildWorkspace({ projects: 1, name: 'Elsewhere' });
  const stranger = await actor(api, { workspaceId: other.id });
  ok(
    await api.post(
      '/entries',
      { projectId: other.projectIds[0], entryType: 'INCOME', amountCents: 123_456, baseCurrency: 'USD', entryDate: '2027-01-01' },
      { token: stranger.token },
    ),
    'foreign entry',
  );

  return {
    api,
    workspaceId: ws.id,
    token,
    ownerId: owner.id,
    P1,
    P2,
    acme,
    globex,
    initech,
    alpha,
    beta,
    gamma,
    otherWorkspaceId: other.id,
    entries,
  };
}

/** GET a report as the dataset owner (or `token`) and expect 200. */
export async function report(d: Dataset, path: string, query: Record<string, string | number> = {}, token = d.token): Promise<any> {
  const res = await d.api.get(`/reports/${path}`, { token, query: { workspaceId: d.workspaceId, ...query } });
  expect(res.status, res.text).toBe(200);
  return res.body;
}
