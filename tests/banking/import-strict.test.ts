import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { bankWorld, camt053, CSV_MAPPING, importFile, imported, ofxSgml, type BankWorld } from '../support/factories/index.js';
import { lines } from './helpers.js';

/** CONTRACT §14 "Statement files, strictly", and the bank_statement.imported event of §15. */
let api: Api;
beforeAll(async () => {
  api = await startServer();
});

const fresh = (): Promise<BankWorld> => bankWorld(api);
const statementEvents = async (w: BankWorld): Promise<any[]> => {
  const res = await api.get(`/webhook-events?workspaceId=${w.workspaceId}&type=bank_statement.imported`, { token: w.token });
  expect(res.status, res.text).toBe(200);
  return res.body.items;
};

describe('camt.053 amounts are unsigned decimals (the sign comes from CdtDbtInd)', () => {
  it('a negative Amt with CRDT is a 400 naming the entry, and nothing is stored', async () => {
    const w = await fresh();
    const file = camt053([
      { date: '2026-01-05', amount: '10.00', id: 'A1' },
      { date: '2026-01-06', amount: '5.00', id: 'A2' },
    ]).replace('<Amt Ccy="EUR">5.00</Amt>', '<Amt Ccy="EUR">-5.00</Amt>');
    expect(file).toContain('-5.00</Amt>\n        <CdtDbtInd>CRDT');
    const res = await importFile(w, w.account.id, file);
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(res.body.issues).toHaveLength(1);
    expect(res.body.issues[0].message).toMatch(/Entry 2 \(Ntry\).*-5\.00.*CdtDbtInd/);
    const ntryLines = file.split('\n').flatMap((l, i) => (l.includes('<Ntry>') ? [i + 1] : []));
    expect(res.body.issues[0].line).toBe(ntryLines[1]);
    expect(await lines(w)).toEqual([]);
    expect(await statementEvents(w)).toEqual([]);
  });

  it('an Amt that is not a plain decimal (grouping, exponent, sign) is a 400', async () => {
    const w = await fresh();
    for (const bad of ['+5.00', '1,000.00', '5e2', '5.']) {
      const file = camt053([{ date: '2026-01-06', amount: '5.00', id: 'B1' }]).replace('>5.00</Amt>', `>${bad}</Amt>`);
      expectErrorBody(await importFile(w, w.account.id, file), 400, 'BAD_REQUEST');
    }
    expect(await lines(w)).toEqual([]);
  });
});

describe('OFX FITIDs', () => {
  it('one FITID on two different transactions is a 400 naming it; nothing is stored', async () => {
    const w = await fresh();
    const file = ofxSgml([
      { date: '2026-01-05', amount: '-1.00', id: 'F1', name: 'Shop' },
      { date: '2026-01-06', amount: '-2.00', id: 'F2', name: 'Shop' },
      { date: '2026-01-07', amount: '-3.00', id: 'F2', name: 'Shop' },
    ]);
    const res = await importFile(w, w.account.id, file);
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(res.body.issues[0].message).toContain('FITID "F2"');
    expect(await lines(w)).toEqual([]);
  });

  it('an identical repeat is a duplicate: stored once and counted', async () => {
    const w = await fresh();
    const tx = { date: '2026-01-06', amount: '-2.00', id: 'F2', name: 'Shop' };
    const st = await imported(w, ofxSgml([{ date: '2026-01-05', amount: '-1.00', id: 'F1', name: 'Shop' }, tx, tx]));
    expect(st).toMatchObject({ lineCount: 3, importedCount: 2, duplicateCount: 1 });
    expect((await lines(w)).map((l) => l.amountCents)).toEqual([-100, -200]);
  });
});

const latin1Csv = Buffer.from('Date;Amount;Text;Payee;Ref\r\n05.01.2026;-4,50;Kaffee;Café Müller;R1\r\n', 'latin1');

describe('text encodings', () => {
  it('a Latin-1 CSV read as UTF-8 is a 400 naming the line, never "Caf\uFFFD M\uFFFDller"', async () => {
    const w = await fresh();
    const res = await importFile(w, w.account.id, latin1Csv, { csvMapping: CSV_MAPPING });
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(res.body.issues).toEqual([{ line: 2, message: expect.stringContaining('UTF-8') }]);
    expect(await lines(w)).toEqual([]);
  });

  it('csvMapping.encoding iso-8859-1 and windows-1252 decode the bytes; undefined bytes are a 400', async () => {
    const w = await fresh();
    await imported(w, latin1Csv as unknown as string, { csvMapping: { ...CSV_MAPPING, encoding: 'iso-8859-1' } });
    expect((await lines(w)).map((l) => l.counterpartyName)).toEqual(['Café Müller']);
    const euro = Buffer.concat([
      Buffer.from('Date;Amount;Text;Payee;Ref\r\n06.01.2026;-9,99;'),
      Buffer.from([0x80]),
      Buffer.from(' fee;Bank;R2\r\n'),
    ]);
    const refused = await importFile(w, w.account.id, euro, { csvMapping: { ...CSV_MAPPING, encoding: 'iso-8859-1' } });
    expectErrorBody(refused, 400, 'BAD_REQUEST');
    expect(refused.body.issues).toEqual([{ line: 2, message: expect.stringContaining('0x80') }]);
    await imported(w, euro as unknown as string, { csvMapping: { ...CSV_MAPPING, encoding: 'windows-1252' } });
    expect((await lines(w)).map((l) => l.description)).toEqual(['Kaffee', '€ fee']);
  });

  it('UTF-16 with a byte-order mark', async () => {
    const w = await fresh();
    const text = 'Date;Amount;Text;Payee;Ref\r\n05.01.2026;12,00;Miete;Zoë;R3\r\n';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    await imported(w, le as unknown as string, { csvMapping: { ...CSV_MAPPING, encoding: 'utf-16' } });
    expect((await lines(w)).map((l) => [l.counterpartyName, l.amountCents])).toEqual([['Zoë', 1200]]);
    const noBom = Buffer.from(text, 'utf16le');
    expectErrorBody(await importFile(w, w.account.id, noBom, { csvMapping: { ...CSV_MAPPING, encoding: 'utf-16' } }), 400, 'BAD_REQUEST');
  });

  it('XML honours its declared encoding; bytes invalid in it are a 400 with the line', async () => {
    const w = await fresh();
    const utf8 = camt053([{ date: '2026-01-05', amount: '7.00', id: 'X1', name: 'Bäckerei Größe' }]);
    const latin = Buffer.from(utf8.replace('encoding="UTF-8"', 'encoding="ISO-8859-1"'), 'latin1');
    await imported(w, latin as unknown as string);
    expect((await lines(w)).map((l) => l.counterpartyName)).toEqual(['Bäckerei Größe']);
    const claimUtf8 = Buffer.from(utf8.replace('X1', 'X3'), 'latin1'); // Latin-1 bytes under encoding="UTF-8"
    const res = await importFile(w, w.account.id, claimUtf8);
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(res.body.issues[0].line).toBe(utf8.split('\n').findIndex((l) => l.includes('Bäckerei')) + 1);
  });
});

describe('bank_statement.imported (CONTRACT §15)', () => {
  it('is published with the statement for every import that stores one, in its transaction', async () => {
    const w = await fresh();
    const file = camt053([{ date: '2026-01-05', amount: '10.00', id: 'E1' }]);
    const first = await imported(w, file);
    const again = await imported(w, file); // all duplicates: a statement is still stored
    const events = await statementEvents(w);
    expect(events.map((e) => e.data.object)).toEqual([first, again]);
    expect(events[0]).toMatchObject({ type: 'bank_statement.imported', workspaceId: w.workspaceId });
    const refused = await importFile(w, w.account.id, file.replace('>10.00<', '>-10.00<'));
    expect(refused.status).toBe(400);
    expect(await statementEvents(w)).toHaveLength(2);
  });
});
