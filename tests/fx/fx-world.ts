import { Workspace } from '../../server/db/models/index.js';
import type { Permission } from '../../shared/permissions.js';
import { entryWorld, expectOk, type EntryWorld } from '../support/entries.js';
import type { Api } from '../support/http.js';

export type FxWorld = EntryWorld & { base: string };

/** An entry world (tests/support/entries.ts) whose workspace reports in `base`. */
export async function fxWorld(api: Api, base = 'EUR', opts: { permissions?: readonly Permission[] } = {}): Promise<FxWorld> {
  const w = await entryWorld(api, opts);
  await Workspace.update({ baseCurrency: base }, { where: { id: w.workspaceId } });
  return { ...w, base };
}

/** POST /fx-rates, expecting success; returns the rate object. */
export async function putRate(w: FxWorld, currency: string, rateDate: string, rate: string): Promise<any> {
  const res = await w.api.post('/fx-rates', { workspaceId: w.workspaceId, currency, rateDate, rate }, { token: w.token });
  expectOk(res, 'upsert rate');
  return res.body;
}

/** POST /fx-rates/import with `content` as the multipart `file` (plus an ignored extra field). */
export function importFile(w: { api: Api; token: string; workspaceId: number }, content: string, name = 'rates.csv') {
  const form = new FormData();
  form.append('note', 'ignored');
  form.append('file', new Blob([content], { type: name.endsWith('.xml') ? 'application/xml' : 'text/csv' }), name);
  return w.api.request('POST', '/fx-rates/import', { token: w.token, query: { workspaceId: w.workspaceId }, rawBody: form });
}

/** A small ECB eurofxref XML file: per day, currencies per EUR. */
export function ecbXml(days: Record<string, Record<string, string>>): string {
  const cubes = Object.entries(days)
    .map(
      ([time, rates]) =>
        `\t\t<Cube time='${time}'>\n${Object.entries(rates)
          .map(([currency, rate]) => `\t\t\t<Cube currency='${currency}' rate='${rate}'/>`)
          .join('\n')}\n\t\t</Cube>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
\t<gesmes:subject>Reference rates</gesmes:subject>
\t<gesmes:Sender>
\t\t<gesmes:name>European Central Bank</gesmes:name>
\t</gesmes:Sender>
\t<Cube>
${cubes}
\t</Cube>
</gesmes:Envelope>
`;
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
