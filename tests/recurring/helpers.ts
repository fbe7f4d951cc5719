import { expectOk } from '../support/entries.js';
import type { ApiResponse } from '../support/http.js';
import type { EntryWorld } from '../support/factories/index.js';

/** POST /recurring-entries with a monthly rent template; overrides replace top-level fields (template merged). */
export function postRecurring(w: EntryWorld, overrides: Record<string, unknown> = {}, token = w.token): Promise<ApiResponse> {
  const { template, ...rest } = overrides;
  return w.api.post(
    '/recurring-entries',
    {
      projectId: w.projectId,
      template: {
        entryType: 'EXPENSE',
        amountCents: 150_000,
        baseCurrency: 'USD',
        toPartyId: w.parties[1],
        description: 'Office rent',
        ...(template as object),
      },
      rrule: 'FREQ=MONTHLY;BYMONTHDAY=1',
      startDate: '2026-01-01',
      ...rest,
    },
    { token },
  );
}

export async function createRecurring(w: EntryWorld, overrides: Record<string, unknown> = {}, token = w.token): Promise<any> {
  const res = await postRecurring(w, overrides, token);
  expectOk(res, 'create recurring entry');
  return res.body;
}

export async function run(w: EntryWorld, id: string, through?: string, token = w.token): Promise<any> {
  const res = await w.api.post(`/recurring-entries/${id}/run`, through ? { through } : {}, { token });
  expectOk(res, 'run recurring entry');
  return res.body;
}

export async function occurrences(w: EntryWorld, id: string, from: string, to: string): Promise<any[]> {
  const res = await w.api.get(`/recurring-entries/${id}/occurrences`, { token: w.token, query: { from, to } });
  expectOk(res, 'occurrences');
  return res.body;
}
