import type { Api } from '../support/http.js';

/** POST /fx-rates/import with `content` as the multipart `file` (plus an ignored extra field). */
export function importFile(w: { api: Api; token: string; workspaceId: number }, content: string, name = 'rates.csv') {
  const form = new FormData();
  form.append('note', 'ignored');
  form.append('file', new Blob([content], { type: name.endsWith('.xml') ? 'application/xml' : 'text/csv' }), name);
  return w.api.request('POST', '/fx-rates/import', { token: w.token, query: { workspaceId: w.workspaceId }, rawBody: form });
}

/** The stored valuation of an entry, read from its row (the entry object shows the same fields). */
export async function valuationOf(
  entryId: number,
): Promise<{ fxRate: string | null; fxRateDate: string | null; amountBaseCents: number | null }> {
  const { db } = await import('../../server/db/database.js');
  const { QueryTypes } = await import('sequelize');
  const [row] = await db().query<any>(
    'SELECT fx_rate AS "fxRate", fx_rate_date AS "fxRateDate", amount_base_cents AS "amountBaseCents" FROM entries WHERE id = $1',
    { bind: [entryId], type: QueryTypes.SELECT },
  );
  return row;
}
