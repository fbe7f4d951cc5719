import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from '../.generated/finance-api.js';

/**
 * The documented flow through a client generated from openapi.json (openapi-typescript types +
 * openapi-fetch). Type-checked against freshly generated types by the test, so a change to the
 * API that breaks generated clients fails there.
 */

export type FinanceClient = ReturnType<typeof createClient<paths>>;

export const financeClient = (baseUrl: string): FinanceClient => createClient<paths>({ baseUrl });

/** Sends `Authorization: Bearer <token>` on every request. */
export function bearer(token: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${token}`);
      return request;
    },
  };
}

type Result<T> = { data?: T; error?: unknown; response: Response };

function ok<T>(step: string, result: Result<T>): T {
  if (result.data === undefined) throw new Error(`${step}: ${result.response.status} ${JSON.stringify(result.error)}`);
  return result.data;
}

export async function walkDocumentedFlow(client: FinanceClient, credentials: { email: string; password: string }) {
  const login = ok('login', await client.POST('/auth/login', { body: credentials }));
  client.use(bearer(login.access_token));

  const workspace = ok('create workspace', await client.POST('/workspaces', { body: { name: 'Generated client', baseCurrency: 'USD' } }));
  const project = ok('create project', await client.POST('/projects', { body: { workspaceId: workspace.id, name: 'Operations' } }));
  const entry = ok(
    'create entry',
    await client.POST('/entries', {
      body: {
        projectId: project.id,
        entryType: 'INCOME',
        amountCents: 250_000,
        baseCurrency: 'USD',
        entryDate: '2026-02-14',
        description: 'Consulting, February',
      },
    }),
  );
  const page = ok(
    'list entries',
    await client.GET('/entries', { params: { query: { workspaceId: workspace.id, entryType: 'INCOME', limit: 10 } } }),
  );
  const summary = ok(
    'summary report',
    await client.GET('/reports/summary', { params: { query: { workspaceId: workspace.id, from: '2026-01-01', to: '2026-12-31' } } }),
  );
  const timeline = ok(
    'timeline report',
    await client.GET('/reports/timeline', {
      params: { query: { workspaceId: workspace.id, from: '2026-01-01', to: '2026-03-31', groupBy: 'month' } },
    }),
  );
  const missing = await client.GET('/entries/{id}', { params: { path: { id: entry.id + 1_000_000 } } });

  return { login, workspace, project, entry, page, summary, timeline, missing: { status: missing.response.status, error: missing.error } };
}
