import { beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { BATCH_SIZE } from '../../server/domains/banking/parsers/types.js';
import { bankWorld, camt053, csvDe, CSV_MAPPING, importFile, imported, ofxSgml, ofxXml, type Tx } from '../support/factories/index.js';
import { lines, rowCount } from './helpers.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});

const TXS: Tx[] = [
  { date: '2026-01-05', amount: '1200.00', name: 'Acme Ltd', memo: 'Invoice INV-1001', id: 'B1', ref: 'RF18INV1001' },
  { date: '2026-01-07', amount: '-45.90', name: 'Office Depot', memo: 'Card payment paper', id: 'B2' },
  { date: '2026-01-09', amount: '-300.00', name: 'Landlord', memo: 'Rent January', id: 'B3' },
];

describe('import formats (CONTRACT §14)', () => {
  it('camt.053: fields by format, balances, period, detected without `format`', async () => {
    const w = await bankWorld(api);
    const file = camt053(TXS, { opening: '100.00', closing: '954.10' });
    const st = await imported(w, file, { fileName: 'jan.xml' });
    expect(st).toMatchObject({
      bankAccountId: w.account.id,
      format: 'CAMT053',
      fileName: 'jan.xml',
      sha256: createHash('sha256').update(file).digest('hex'),
      lineCount: 3,
      importedCount: 3,
      duplicateCount: 0,
      autoMatchedCount: 0,
      openingBalanceCents: 10_000,
      closingBalanceCents: 95_410,
      periodStart: '2026-01-05',
      periodEnd: '2026-01-09',
      importedBy: expect.any(String),
    });
    const got = await lines(w);
    expect(got.map((l) => l.amountCents)).toEqual([120_000, -4_590, -30_000]);
    expect(got[0]).toMatchObject({
      statementId: st.id,
      bookingDate: '2026-01-05',
      valueDate: '2026-01-05',
      currency: 'EUR',
      description: 'Invoice INV-1001',
      counterpartyName: 'Acme Ltd',
      reference: 'RF18INV1001',
      externalId: 'B1',
      status: 'UNMATCHED',
      matchId: null,
      ignoredReason: null,
    });
    expect(got[1].reference).toBeNull(); // EndToEndId NOTPROVIDED and no structured reference
    const list = await api.get(`/bank-accounts/${w.account.id}/statements`, { token: w.token });
    expect(list.body.map((s: any) => s.id)).toEqual([st.id]);
  });

  it('camt.053 whose opening + lines ≠ closing: 400, nothing stored', async () => {
    const w = await bankWorld(api);
    const res = await importFile(w, w.account.id, camt053(TXS, { opening: '100.00', closing: '954.11' }));
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(res.body.issues[0].message).toMatch(/closing balance/);
    expect(await rowCount('bank_statements', 'bank_account_id = :id', { id: w.account.id })).toBe(0);
    expect(await rowCount('bank_lines', 'bank_account_id = :id', { id: w.account.id })).toBe(0);
  });

  it('currency mismatch of the file and of an entry: 400, nothing stored', async () => {
    const w = await bankWorld(api);
    expectErrorBody(await importFile(w, w.account.id, camt053(TXS, { currency: 'USD' })), 400, 'BAD_REQUEST');
    expectErrorBody(await importFile(w, w.account.id, camt053(TXS, { entryCurrency: 'USD' })), 400, 'BAD_REQUEST');
    expectErrorBody(await importFile(w, w.account.id, ofxSgml(TXS, { currency: 'GBP' })), 400, 'BAD_REQUEST');
    expect(await rowCount('bank_lines', 'bank_account_id = :id', { id: w.account.id })).toBe(0);
  });

  it('OFX 1.x SGML: FITID, NAME, MEMO (NAME without MEMO), REFNUM, LEDGERBAL', async () => {
    const w = await bankWorld(api);
    const st = await imported(
      w,
      ofxSgml([...TXS, { date: '2026-01-10', amount: '-5.00', name: 'Bank & Co', id: 'B4' }], { closing: '849.10' }),
    );
    expect(st).toMatchObject({
      format: 'OFX',
      lineCount: 4,
      importedCount: 4,
      closingBalanceCents: 84_910,
      openingBalanceCents: null,
      periodStart: '2026-01-01',
    });
    const got = await lines(w);
    expect(got[0]).toMatchObject({
      externalId: 'B1',
      counterpartyName: 'Acme Ltd',
      description: 'Invoice INV-1001',
      reference: 'RF18INV1001',
    });
    expect(got[3]).toMatchObject({ description: 'Bank & Co', counterpartyName: 'Bank & Co', amountCents: -500 });
  });

  it('OFX 2.x XML with CHECKNUM', async () => {
    const w = await bankWorld(api);
    const st = await imported(w, ofxXml([{ date: '2026-01-03', amount: '-12.5', name: 'Shop', id: 'X1', ref: '1002' }]));
    expect(st).toMatchObject({ format: 'OFX', importedCount: 1 });
    expect((await lines(w))[0]).toMatchObject({ amountCents: -1250, reference: '1002', bookingDate: '2026-01-03' });
  });

  it('CSV: ; detected, decimal comma, DD.MM.YYYY, header names; the given mapping is saved on the account', async () => {
    const w = await bankWorld(api);
    const st = await imported(w, csvDe(TXS), { csvMapping: CSV_MAPPING });
    expect(st).toMatchObject({ format: 'CSV', lineCount: 3, importedCount: 3 });
    expect((await lines(w)).map((l) => [l.bookingDate, l.amountCents, l.counterpartyName])).toEqual([
      ['2026-01-05', 120_000, 'Acme Ltd'],
      ['2026-01-07', -4_590, 'Office Depot'],
      ['2026-01-09', -30_000, 'Landlord'],
    ]);
    const account = await api.get(`/bank-accounts/${w.account.id}`, { token: w.token });
    expect(account.body.csvMapping).toMatchObject({ ...CSV_MAPPING, hasHeader: true });
    // the saved mapping is used when none is given
    const again = await imported(w, csvDe([{ date: '2026-01-20', amount: '1,00', memo: 'x' }]));
    expect(again.importedCount).toBe(1);
  });

  it('CSV: 0-based indexes without header, debit/credit columns, MM/DD/YYYY, tab delimiter given', async () => {
    const w = await bankWorld(api);
    const file = '01/31/2026\t12.00\t\tRefund\n02/01/2026\t\t1,234.56\tSalary\n';
    const mapping = {
      dateColumn: 0,
      debitColumn: 1,
      creditColumn: 2,
      descriptionColumn: 3,
      dateFormat: 'MM/DD/YYYY',
      decimalSeparator: '.',
      delimiter: '\t',
      hasHeader: false,
    };
    await imported(w, file, { csvMapping: mapping });
    expect((await lines(w)).map((l) => [l.bookingDate, l.amountCents])).toEqual([
      ['2026-01-31', -1200],
      ['2026-02-01', 123_456],
    ]);
  });

  it('CSV: every bad line is named (1-based) in issues; nothing stored', async () => {
    const w = await bankWorld(api);
    const file =
      'Date;Amount;Text;Payee;Ref\n05.01.2026;10,00;a;b;c\n31.02.2026;10,00;a;b;c\n06.01.2026;1,234;a;b;c\n07.01.2026;abc;a;b;c\n';
    const res = await importFile(w, w.account.id, file, { csvMapping: CSV_MAPPING });
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(res.body.issues.map((i: any) => i.line)).toEqual([3, 4, 5]);
    expect(res.body.issues[1].message).toMatch(/more decimals/);
    expect(await rowCount('bank_lines', 'bank_account_id = :id', { id: w.account.id })).toBe(0);
    expect(await rowCount('bank_statements', 'bank_account_id = :id', { id: w.account.id })).toBe(0);
  });

  it('CSV without a mapping on either side: 400; a mapping naming a missing header: 400', async () => {
    const w = await bankWorld(api);
    expectErrorBody(await importFile(w, w.account.id, csvDe(TXS)), 400, 'BAD_REQUEST');
    const res = await importFile(w, w.account.id, csvDe(TXS), { csvMapping: { ...CSV_MAPPING, amountColumn: 'Betrag' } });
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(res.body.issues[0]).toMatchObject({ line: 1 });
    expectErrorBody(await importFile(w, w.account.id, csvDe(TXS), { csvMapping: '{not json' }), 400, 'BAD_REQUEST');
    expectErrorBody(
      await importFile(w, w.account.id, csvDe(TXS), { csvMapping: { ...CSV_MAPPING, debitColumn: 'x' } }),
      400,
      'BAD_REQUEST',
    );
  });

  it('more decimals than the currency has (JPY has none): 400', async () => {
    const w = await bankWorld(api, { currency: 'JPY' });
    const res = await importFile(w, w.account.id, camt053([{ date: '2026-01-05', amount: '100.5', id: 'J1' }], { currency: 'JPY' }));
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(
      (await importFile(w, w.account.id, camt053([{ date: '2026-01-05', amount: '100', id: 'J1' }], { currency: 'JPY' }))).body
        .importedCount,
    ).toBe(1);
  });

  it('more than 100,000 lines: 400, nothing stored', async () => {
    const w = await bankWorld(api);
    const rows = Array.from({ length: 100_001 }, (_, i) => `2026-01-01,1.00,line ${i}`);
    const mapping = {
      dateColumn: 0,
      amountColumn: 1,
      descriptionColumn: 2,
      dateFormat: 'YYYY-MM-DD',
      decimalSeparator: '.',
      hasHeader: false,
    };
    const res = await importFile(w, w.account.id, rows.join('\n'), { csvMapping: mapping });
    expectErrorBody(res, 400, 'BAD_REQUEST');
    expect(res.body.issues[0]).toMatchObject({ line: 100_001 });
    expect(await rowCount('bank_lines', 'bank_account_id = :id', { id: w.account.id })).toBe(0);
  });

  it('an unreadable XML file: 400', async () => {
    const w = await bankWorld(api);
    const res = await importFile(w, w.account.id, camt053(TXS).replace('</Ntry>', ''), { format: 'CAMT053' });
    expectErrorBody(res, 400, 'BAD_REQUEST');
  });
});

describe('duplicates (CONTRACT §14)', () => {
  it('the same file twice stores nothing the second time', async () => {
    const w = await bankWorld(api);
    await imported(w, camt053(TXS));
    const second = await imported(w, camt053(TXS));
    expect(second).toMatchObject({ lineCount: 3, importedCount: 0, duplicateCount: 3 });
    expect(await lines(w)).toHaveLength(3);
  });

  it('overlapping statements store each bank line once (by bank id, and by hash without one)', async () => {
    const w = await bankWorld(api);
    const noIds = TXS.map(({ id: _id, ...t }) => t);
    await imported(w, csvDe(noIds.slice(0, 2)), { csvMapping: CSV_MAPPING });
    const second = await imported(w, csvDe(noIds.slice(1)), { csvMapping: CSV_MAPPING });
    expect(second).toMatchObject({ lineCount: 2, importedCount: 1, duplicateCount: 1 });
    // bank ids: lines with an id never collide with the hash fingerprints of lines without one
    expect(await imported(w, camt053([TXS[0], TXS[1]]))).toMatchObject({ importedCount: 2, duplicateCount: 0 });
    expect(await imported(w, camt053([TXS[1], TXS[2]]))).toMatchObject({ importedCount: 1, duplicateCount: 1 });
    expect(await lines(w)).toHaveLength(6);
  });

  it('two identical card payments on one day in one file are two lines; the file again adds none', async () => {
    const w = await bankWorld(api);
    const card: Tx = { date: '2026-01-05', amount: '-4.50', name: 'Coffee Bar', memo: 'CARD PAYMENT' };
    expect((await imported(w, csvDe([card, card]), { csvMapping: CSV_MAPPING })).importedCount).toBe(2);
    expect((await imported(w, csvDe([card, card, card]), { csvMapping: CSV_MAPPING })).importedCount).toBe(1);
    expect(await lines(w)).toHaveLength(3);
  });

  it('equal lines without a bank id are numbered across the batches of a large file: the file again adds none, one more adds one', async () => {
    const w = await bankWorld(api);
    const mapping = {
      dateColumn: 0,
      amountColumn: 1,
      descriptionColumn: 2,
      dateFormat: 'YYYY-MM-DD',
      decimalSeparator: '.',
      hasHeader: false,
    };
    const file = (n: number) => Array.from({ length: n }, () => '2026-01-02,-2.50,SAME CARD PAYMENT').join('\n') + '\n';
    const n = BATCH_SIZE + 3; // the lines span two insert batches
    expect(await imported(w, file(n), { csvMapping: mapping })).toMatchObject({
      lineCount: n,
      importedCount: n,
      duplicateCount: 0,
      periodStart: '2026-01-02',
      periodEnd: '2026-01-02',
    });
    expect(await imported(w, file(n))).toMatchObject({ lineCount: n, importedCount: 0, duplicateCount: n });
    expect(await imported(w, file(n + 1))).toMatchObject({ lineCount: n + 1, importedCount: 1, duplicateCount: n });
    expect(await rowCount('bank_lines', 'bank_account_id = :id', { id: w.account.id })).toBe(n + 1);
  });

  it('racing imports of overlapping files on one account never store a line twice', async () => {
    const w = await bankWorld(api);
    const many: Tx[] = Array.from({ length: 300 }, (_, i) => ({
      date: '2026-01-10',
      amount: `-${i + 1}.00`,
      memo: `item ${i}`,
      id: `R${i}`,
    }));
    const files = [camt053(many), camt053(many.slice(100)), ofxSgml(many.slice(0, 200)), camt053(many)];
    const results = await Promise.all(files.map((f) => importFile(w, w.account.id, f)));
    for (const r of results) expect(r.status, r.text).toBe(200);
    const importedTotal = results.reduce((s, r) => s + r.body.importedCount, 0);
    expect(importedTotal).toBe(300);
    for (const r of results) expect(r.body.importedCount + r.body.duplicateCount).toBe(r.body.lineCount);
    expect(await rowCount('bank_lines', 'bank_account_id = :id', { id: w.account.id })).toBe(300);
  });
});
