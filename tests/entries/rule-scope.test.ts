import { beforeAll, describe, expect, it } from 'vitest';
import { actor, entryWorld, type EntryWorld, createKey } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';

/**
 * CONTRACT §11, §16, §19: no route lets a scoped caller write outside its scope, rules included. A
 * CREATE rule's SET_PROJECT that would carry a project-scoped caller's entry out of its projects is
 * a 403 and writes nothing; a caller who reaches the target project gets the rule's move.
 */
let api: Api;
let w: EntryWorld;
let p1: number;
let p2: number;

beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api, { projects: 2 });
  [p1, p2] = w.projectIds as [number, number];
  const rule = await api.post(
    '/rules',
    {
      workspaceId: w.workspaceId,
      name: 'elsewhere to project 2',
      triggers: ['CREATE'],
      conditions: [{ field: 'description', operator: 'contains', value: 'elsewhere' }],
      actions: [{ type: 'SET_PROJECT', projectId: p2 }],
    },
    { token: w.token },
  );
  expect(rule.status, rule.text).toBe(200);
});

const body = (description: string) => ({
  projectId: p1,
  entryType: 'EXPENSE',
  amountCents: 3_300,
  baseCurrency: 'USD',
  entryDate: '2026-04-02',
  description,
});
const countIn = async (projectId: number, description: string): Promise<number> => {
  const res = await api.get('/entries', { token: w.token, query: { workspaceId: w.workspaceId, projectId, search: description } });
  expect(res.status, res.text).toBe(200);
  return (res.body.items as { description: string }[]).filter((e) => e.description === description).length;
};

describe('a CREATE rule and the writer’s project scope', () => {
  it('refuses a project-scoped API key whose entry a rule would move out of its projects (403, nothing written)', async () => {
    const key = await createKey(api, w.token, { workspaceId: w.workspaceId, permissions: ['entry.create'], projectIds: [p1] });
    const refused = await api.post('/entries', body('key: book it elsewhere'), { token: key.apiKey });
    expectErrorBody(refused, 403, 'FORBIDDEN');
    expect(refused.body.message).toContain(`project ${p2}`);
    expect(await countIn(p2, 'key: book it elsewhere')).toBe(0);
    expect(await countIn(p1, 'key: book it elsewhere')).toBe(0);
    const plain = await api.post('/entries', body('key: plain'), { token: key.apiKey });
    expect(plain.status, plain.text).toBe(200);
    expect(plain.body.projectId).toBe(p1);
  });

  it('moves the entry of a workspace member, who reaches both projects', async () => {
    const member = await actor(api, { workspaceId: w.workspaceId, permissions: ['entry.create'] });
    const moved = await api.post('/entries', body('member: book it elsewhere'), { token: member.token });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.projectId).toBe(p2);
  });
});
