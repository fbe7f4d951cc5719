import { expect } from 'vitest';
import type { Api, ApiResponse } from '../../../support/http.js';
import type { CrashWorld } from './crash-load.js';
import { ADMIN } from './server-process.js';

function body(res: ApiResponse, what: string): any {
  if (res.status !== 200 && res.status !== 201) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res.body;
}

/** Through the real server's API: the bootstrap admin's token, a workspace with a project, parties, tags, an integration. */
export async function buildCrashWorld(baseUrl: string): Promise<CrashWorld> {
  const api = plainClient(baseUrl);
  const token = body(await api.post('/auth/login', ADMIN), 'login').access_token as string;
  const ws = body(await api.post('/workspaces', { name: 'Crash test' }, { token }), 'workspace');
  const project = body(await api.post('/projects', { workspaceId: ws.id, name: 'Load' }, { token }), 'project');
  const partyIds: number[] = [];
  for (const name of ['Us Ltd', 'Them Inc'])
    partyIds.push(body(await api.post('/parties', { workspaceId: ws.id, name, partyType: 'ORGANIZATION' }, { token }), 'party').id);
  const tags: { id: number; name: string }[] = [];
  for (const name of ['alpha', 'beta', 'gamma']) tags.push(body(await api.post('/tags', { workspaceId: ws.id, name }, { token }), 'tag'));
  const integration = body(await api.post('/integrations', { workspaceId: ws.id, name: 'Feed' }, { token }), 'integration');
  expect(integration.apiKey).toEqual(expect.any(String));
  return {
    api,
    token,
    workspaceId: ws.id,
    projectId: project.id,
    partyIds,
    tags: tags.map((t) => ({ id: t.id, name: t.name })),
    integrationId: integration.id,
    apiKey: integration.apiKey,
  };
}

/** The same calls as tests/support/http.ts, without importing the app (the server runs in a child process). */
export function plainClient(baseUrl: string): Api {
  const request = async (
    method: string,
    path: string,
    opts: { token?: string; body?: unknown; rawBody?: string | Buffer | FormData; headers?: Record<string, string> } = {},
  ) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
    if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(new URL(path, baseUrl), {
      method,
      headers,
      // a raw body (multipart FormData: fetch sets its Content-Type with the boundary)
      body:
        opts.rawBody !== undefined
          ? (opts.rawBody as RequestInit['body'])
          : opts.body === undefined
            ? undefined
            : JSON.stringify(opts.body),
    });
    const text = await res.text();
    const json = (res.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : text;
    return { status: res.status, body: json, headers: res.headers, text };
  };
  return {
    baseUrl,
    request: request as Api['request'],
    get: ((p, o) => request('GET', p, o)) as Api['get'],
    post: ((p, b, o) => request('POST', p, { ...o, body: b })) as Api['post'],
    patch: ((p, b, o) => request('PATCH', p, { ...o, body: b })) as Api['patch'],
    put: ((p, b, o) => request('PUT', p, { ...o, body: b })) as Api['put'],
    del: ((p, o) => request('DELETE', p, o)) as Api['del'],
  };
}
