import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { entryWorld, type EntryWorld } from '../support/factories/index.js';
import { ensureDebianPackages, onPath } from '../support/debian-package.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';
import { postRaw, rawAccounts } from './books-fixture.js';

/** CONTRACT §23, Exports: the journal of a range as RFC 4180 CSV and as SAF-T Financial 1.30, valid against its XSD. */
const XSD = path.resolve(__dirname, '../../../shared/samples/saft/Norwegian_SAF-T_Financial_Schema_v_1.30.xsd');
const run = promisify(execFile);

let api: Api;
let w: EntryWorld;
let a: Record<string, string>;
let T: number[];

beforeAll(async () => {
  api = await startServer();
  w = await entryWorld(api);
  a = await rawAccounts(w.workspaceId, [
    ['1920', 'Bank "main", Oslo', 'ASSET'],
    ['2050', 'Equity & reserves', 'EQUITY'],
    ['3000', '=Sales <export>', 'REVENUE'],
  ]);
  T = await postRaw(w.workspaceId, [
    {
      date: '2026-01-02',
      kind: 'OPENING',
      description: 'Opening balance',
      lines: [
        [a['1920'], 50_000, 0],
        [a['2050'], 0, 50_000],
      ],
    },
    {
      date: '2026-02-10',
      kind: 'MANUAL',
      description: 'Cash sale, "walk-in"\nsecond line',
      lines: [
        [a['1920'], 1_234, 0],
        [a['3000'], 0, 1_234],
      ],
    },
    {
      date: '2026-03-01',
      kind: 'MANUAL',
      description: 'Later sale',
      lines: [
        [a['1920'], 99, 0],
        [a['3000'], 0, 99],
      ],
    },
  ]);
  await ensureDebianPackages(['libxml2-utils'], () => onPath('xmllint') !== undefined, 'xmllint');
}, 1_300_000);

const exportOf = (query: Record<string, string | number>) =>
  api.get('/ledger/journal/export', { token: w.token, query: { workspaceId: w.workspaceId, ...query } });

describe('GET /ledger/journal/export?format=csv', () => {
  it('writes one RFC 4180 row per line after a header, for the range', async () => {
    const res = await exportOf({ format: 'csv', from: '2026-01-01', to: '2026-02-28' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    expect(res.text).toBe(
      [
        'transactionId,date,kind,entryId,code,name,debitCents,creditCents,description',
        `${T[0]},2026-01-02,OPENING,,"1920","Bank ""main"", Oslo",50000,0,"Opening balance"`,
        `${T[0]},2026-01-02,OPENING,,"2050","Equity & reserves",0,50000,"Opening balance"`,
        `${T[1]},2026-02-10,MANUAL,,"1920","Bank ""main"", Oslo",1234,0,"Cash sale, ""walk-in""\nsecond line"`,
        `${T[1]},2026-02-10,MANUAL,,"3000","'=Sales <export>",0,1234,"Cash sale, ""walk-in""\nsecond line"`,
        '',
      ].join('\r\n'),
    );
  });

  it('refuses an inverted range (400)', async () => {
    expectErrorBody(await exportOf({ format: 'csv', from: '2026-03-01', to: '2026-01-01' }), 400, 'BAD_REQUEST');
    expectErrorBody(await exportOf({ format: 'pdf' }), 400, 'BAD_REQUEST');
  });
});

describe('GET /ledger/journal/export?format=saft', () => {
  it('is valid against the SAF-T Financial 1.30 XSD, with the accounts’ opening and closing balances and the range’s transactions', async () => {
    const res = await exportOf({ format: 'saft', from: '2026-02-01', to: '2026-03-31' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/xml');
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'saft-')), 'journal.xml');
    writeFileSync(file, res.text);
    const lint = await run('xmllint', ['--noout', '--schema', XSD, file]).catch((err: { stderr: string }) => ({
      stderr: err.stderr,
      failed: true,
    }));
    expect(lint.stderr).toContain('validates');
    expect('failed' in lint).toBe(false);

    const xml = res.text;
    expect(xml).toContain('<DefaultCurrencyCode>USD</DefaultCurrencyCode>');
    expect(xml).toContain('<SelectionStartDate>2026-02-01</SelectionStartDate><SelectionEndDate>2026-03-31</SelectionEndDate>');
    const bank = xml.slice(
      xml.indexOf('<AccountID>1920</AccountID>'),
      xml.indexOf('</Account>', xml.indexOf('<AccountID>1920</AccountID>')),
    );
    expect(bank).toContain('<OpeningDebitBalance>500.00</OpeningDebitBalance>');
    expect(bank).toContain('<ClosingDebitBalance>513.33</ClosingDebitBalance>');
    expect(bank).toContain('<AccountDescription>Bank &quot;main&quot;, Oslo</AccountDescription>');
    expect(xml).toContain('<AccountDescription>=Sales &lt;export&gt;</AccountDescription>');
    expect(xml).toContain('<NumberOfEntries>2</NumberOfEntries><TotalDebit>13.33</TotalDebit><TotalCredit>13.33</TotalCredit>');
    expect(xml.match(/<Transaction>/g)).toHaveLength(2);
    expect(xml).toContain(`<TransactionID>${T[1]}</TransactionID>`);
    expect(xml).not.toContain(`<TransactionID>${T[0]}</TransactionID>`);
  });

  it('is valid for a workspace without books and over many transactions (read in batches)', async () => {
    const empty = await entryWorld(api);
    const none = await api.get('/ledger/journal/export', { token: empty.token, query: { workspaceId: empty.workspaceId, format: 'saft' } });
    expect(none.status).toBe(200);
    const dir = mkdtempSync(path.join(tmpdir(), 'saft-'));
    writeFileSync(path.join(dir, 'empty.xml'), none.text);
    await run('xmllint', ['--noout', '--schema', XSD, path.join(dir, 'empty.xml')]);

    const many = Array.from({ length: 600 }, (_, i) => ({
      date: '2026-04-01',
      kind: 'MANUAL' as const,
      lines: [
        [a['1920'], i + 1, 0],
        [a['3000'], 0, i + 1],
      ] as [string, number, number][],
    }));
    await postRaw(w.workspaceId, many);
    const res = await exportOf({ format: 'saft', from: '2026-04-01', to: '2026-04-30' });
    writeFileSync(path.join(dir, 'many.xml'), res.text);
    await run('xmllint', ['--noout', '--schema', XSD, path.join(dir, 'many.xml')]);
    expect(res.text.match(/<Transaction>/g)).toHaveLength(600);
    const total = (600 * 601) / 2;
    expect(res.text).toContain(`<NumberOfEntries>600</NumberOfEntries><TotalDebit>${(total / 100).toFixed(2)}</TotalDebit>`);
  }, 120_000);

  it('writes totals beyond 2^53 cents exactly, and answers 409 before any byte when one has more than the schema’s 18 digits', async () => {
    const big = await entryWorld(api);
    const acc = await rawAccounts(big.workspaceId, [
      ['1920', 'Bank', 'ASSET'],
      ['3000', 'Sales', 'REVENUE'],
    ]);
    const near = 999_999_999_999_999; // the largest amount an entry can carry, in cents
    const sale = (date: string) => ({
      date,
      kind: 'MANUAL' as const,
      lines: [
        [acc['1920'], near, 0],
        [acc['3000'], 0, near],
      ] as [string, number, number][],
    });
    await postRaw(big.workspaceId, Array.from({ length: 12 }, () => sale('2026-05-02')));
    const ok = await api.get('/ledger/journal/export', {
      token: big.token,
      query: { workspaceId: big.workspaceId, format: 'saft', from: '2026-05-01', to: '2026-05-31' },
    });
    expect(ok.status).toBe(200);
    const sum = (BigInt(near) * 12n).toString(); // 11999999999999988 cents: past 2^53, exact only as text
    const decimal = `${sum.slice(0, -2)}.${sum.slice(-2)}`;
    expect(ok.text).toContain(`<TotalDebit>${decimal}</TotalDebit><TotalCredit>${decimal}</TotalCredit>`);
    expect(ok.text).toContain(`<ClosingDebitBalance>${decimal}</ClosingDebitBalance>`);
    const dir = mkdtempSync(path.join(tmpdir(), 'saft-'));
    writeFileSync(path.join(dir, 'big.xml'), ok.text);
    await run('xmllint', ['--noout', '--schema', XSD, path.join(dir, 'big.xml')]);

    // 1,000 more: 10^18 cents and more, 19 digits, which SAFmonetaryType cannot hold
    await postRaw(big.workspaceId, Array.from({ length: 1_000 }, () => sale('2026-06-02')));
    const tooBig = await api.get('/ledger/journal/export', {
      token: big.token,
      query: { workspaceId: big.workspaceId, format: 'saft', from: '2026-06-01', to: '2026-06-30' },
    });
    expectErrorBody(tooBig, 409, 'CONFLICT');
    expect(tooBig.body.message).toMatch(/18 digits/);
  }, 120_000);

  it('writes amounts in the workspace currency’s own units: 3-decimal (KWD) and 0-decimal (JPY) books', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'saft-'));
    for (const [currency, minor, written] of [
      ['KWD', 12_345, '12.34'], // 12.345 KWD: the schema keeps 2 fraction digits
      ['JPY', 12_345, '12345.00'],
    ] as const) {
      const other = await entryWorld(api);
      const patched = await api.patch(`/workspaces/${other.workspaceId}`, { baseCurrency: currency }, { token: other.token });
      expect(patched.status, patched.text).toBe(200);
      const acc = await rawAccounts(other.workspaceId, [
        ['1920', 'Bank', 'ASSET'],
        ['3000', 'Sales', 'REVENUE'],
      ]);
      await postRaw(other.workspaceId, [
        {
          date: '2026-07-01',
          kind: 'MANUAL',
          lines: [
            [acc['1920'], minor, 0],
            [acc['3000'], 0, minor],
          ],
        },
      ]);
      const res = await api.get('/ledger/journal/export', {
        token: other.token,
        query: { workspaceId: other.workspaceId, format: 'saft', from: '2026-07-01', to: '2026-07-31' },
      });
      expect(res.status).toBe(200);
      expect(res.text).toContain(`<DefaultCurrencyCode>${currency}</DefaultCurrencyCode>`);
      expect(res.text).toContain(`<TotalDebit>${written}</TotalDebit><TotalCredit>${written}</TotalCredit>`);
      expect(res.text).toContain(`<ClosingDebitBalance>${written}</ClosingDebitBalance>`);
      expect(res.text).toContain(`<DebitAmount><Amount>${written}</Amount></DebitAmount>`);
      writeFileSync(path.join(dir, `${currency}.xml`), res.text);
      await run('xmllint', ['--noout', '--schema', XSD, path.join(dir, `${currency}.xml`)]);
    }
  });
});
