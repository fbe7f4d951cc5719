import { expect } from 'vitest';
import { expectOk } from '../entries.js';
import type { Api } from '../http.js';

export async function createPeriod(
  api: Api,
  token: string,
  workspaceId: number,
  startDate: string,
  endDate: string,
  name?: string,
): Promise<any> {
  const res = await api.post(
    '/accounting/periods',
    { workspaceId, name: name ?? `${startDate}..${endDate}`, startDate, endDate },
    { token },
  );
  expectOk(res, 'create period');
  return res.body;
}

/** Creates a period and closes it; returns the closed period. */
export async function closePeriod(
  api: Api,
  token: string,
  workspaceId: number,
  startDate: string,
  endDate: string,
  name?: string,
): Promise<any> {
  const period = await createPeriod(api, token, workspaceId, startDate, endDate, name);
  const res = await api.patch(`/accounting/periods/${period.id}/close`, undefined, { token });
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('CLOSED');
  return res.body;
}
