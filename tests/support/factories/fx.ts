import { Workspace } from '../../../server/db/models/index.js';
import type { Permission } from '../../../shared/permissions.js';
import { expectOk } from '../entries.js';
import type { Api } from '../http.js';
import { entryWorld, type EntryWorld } from './entries.js';

export type FxWorld = EntryWorld & { base: string };

/** An entry world (./entries.ts) whose workspace reports in `base`. */
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
