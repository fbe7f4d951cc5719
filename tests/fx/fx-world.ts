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

/**
 * TEST-ONLY WORLD BUILDING (phase 1): the ledger core does not yet value entries when they are
 * created (it will call fx's valuate() then). Until it does, this gives the listed entries the
 * valuation valuate() computes for them now, with a direct SQL UPDATE of the three columns —
 * the state a create would have left. Phase 2 removes it in favour of real creates.
 */
export async function valueEntriesAsCreateWill(workspaceId: number, entryIds: number[]): Promise<void> {
  const { db } = await import('../../server/db/database.js');
  const { valuate } = await import('../../server/domains/fx/index.js');
  const { QueryTypes } = await import('sequelize');
  const rows = await db().query<{ id: number; currency: string; entry_date: string; amount_cents: number }>(
    'SELECT id, base_currency::text AS currency, entry_date, amount_cents FROM entries WHERE id = ANY($1::bigint[]) ORDER BY id',
    { bind: [entryIds], type: QueryTypes.SELECT },
  );
  const values = await valuate(
    undefined,
    workspaceId,
    rows.map((r) => ({ currency: r.currency, entryDate: r.entry_date, amountCents: r.amount_cents })),
  );
  await db().query(
    `UPDATE entries e SET fx_rate = v.rate, fx_rate_date = v.rate_date, amount_base_cents = v.base
       FROM unnest($1::bigint[], $2::numeric[], $3::date[], $4::bigint[]) AS v(id, rate, rate_date, base)
      WHERE e.id = v.id`,
    { bind: [rows.map((r) => r.id), values.map((v) => v.fxRate), values.map((v) => v.fxRateDate), values.map((v) => v.amountBaseCents)] },
  );
}

/** The stored valuation of an entry (the entry object gains these fields in phase 2). */
export async function valuationOf(
  entryId: number,
): Promise<{ fxRate: string | null; fxRateDate: string | null; amountBaseCents: number | null }> {
  const { db } = await import('../../server/db/database.js');
  const { QueryTypes } = await import('sequelize');
  const [row] = await db().query<any>(
    'SELECT trim_scale(fx_rate)::text AS "fxRate", fx_rate_date AS "fxRateDate", amount_base_cents AS "amountBaseCents" FROM entries WHERE id = $1',
    { bind: [entryId], type: QueryTypes.SELECT },
  );
  return row;
}
