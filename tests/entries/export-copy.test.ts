import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { QueryTypes } from 'sequelize';
import { describe, expect, it } from 'vitest';
import { copyOutStream, inlineParameters } from '../../server/db/copy-out.js';
import { db } from '../../server/db/database.js';
import { CsvRecordEndsToCrlf } from '../../server/lib/csv-line-ends.js';
import { formatMinorUnits, minorUnitValuesSql } from '../../server/lib/money.js';
import { ISO_4217_EXPONENTS } from '../../shared/currencies.js';

/** The export's building blocks (issue 35): PostgreSQL's COPY writes the CSV, the server turns LF record ends into CRLF. */
async function crlf(chunks: string[]): Promise<string> {
  const out = Readable.from(chunks.map((c) => Buffer.from(c, 'utf8'))).pipe(new CsvRecordEndsToCrlf());
  return (await buffer(out)).toString('utf8');
}

describe('CsvRecordEndsToCrlf', () => {
  const copyCsv = '1,"a ""b"", c",x\n2,"line\nbreak and ""\r\n",""\n3,,"q"\n';
  const expected = '1,"a ""b"", c",x\r\n2,"line\nbreak and ""\r\n",""\r\n3,,"q"\r\n';

  it('ends records with CRLF and leaves line breaks inside quoted fields as they are', async () => {
    expect(await crlf([copyCsv])).toBe(expected);
    expect(await crlf([''])).toBe('');
    expect(await crlf(['no record end'])).toBe('no record end');
  });

  it('carries the quote state across every possible chunk boundary', async () => {
    for (let a = 0; a <= copyCsv.length; a++) {
      for (let b = a; b <= copyCsv.length; b += 3) {
        expect(await crlf([copyCsv.slice(0, a), copyCsv.slice(a, b), copyCsv.slice(b)])).toBe(expected);
      }
    }
  });
});

describe('inlineParameters', () => {
  it('writes integers, booleans, text and integer arrays as literals, quoting only the values', () => {
    expect(inlineParameters('a = $1 AND b = $2 AND c = ANY($3::int[]) AND d = $10', [7, true, [1, 2], 0, 0, 0, 0, 0, 0, "O'B\\"])).toBe(
      `a = 7 AND b = true AND c = ANY('{1,2}'::int[]) AND d =  E'O''B\\\\'`,
    );
  });

  it('refuses what it cannot write safely', () => {
    expect(() => inlineParameters('a = $1', [1.5])).toThrow(/not an integer/);
    expect(() => inlineParameters('a = $1', [{}])).toThrow(/not supported/);
    expect(() => inlineParameters('a = $2', [1])).toThrow(/has 1 parameters/);
  });

  it('round-trips hostile text through PostgreSQL unchanged', async () => {
    for (const text of ["x'); DROP TABLE entries; --", "\\'; SELECT 1; --", 'tab\tnl\n\\n%_$1', 'ünï ✓']) {
      const [row] = await db().query<{ v: string }>(inlineParameters('SELECT $1::text AS v', [text]), { type: QueryTypes.SELECT });
      expect(row.v).toBe(text);
    }
  });
});

describe('copyOutStream', () => {
  const running = async () =>
    Number(
      (
        await db().query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity WHERE query LIKE 'COPY (SELECT g FROM generate_series%'`,
          {
            type: QueryTypes.SELECT,
          },
        )
      )[0].n,
    );

  it('streams the rows of a query with its parameters', async () => {
    const out = await copyOutStream('SELECT g, $1::text AS t FROM generate_series(1, 3) g', ['a,"b"'], '(FORMAT csv)');
    expect((await buffer(out)).toString()).toBe('1,"a,""b"""\n2,"a,""b"""\n3,"a,""b"""\n');
  });

  it('a reader that goes away mid-stream closes the COPY and its connection', async () => {
    const out = await copyOutStream('SELECT g FROM generate_series(1, 50000000) g', [], '(FORMAT csv)');
    for await (const chunk of out) {
      expect((chunk as Buffer).length).toBeGreaterThan(0);
      break; // destroys the stream
    }
    await expect.poll(running, { timeout: 10_000, interval: 100 }).toBe(0);
  });
});

describe('the export amount cell (CONTRACT §5: major units with the ISO 4217 exponent)', () => {
  it('PostgreSQL writes every currency and amount as formatMinorUnits does', async () => {
    const amounts = [0, 5, 99, 100, 12345, 1_000_000_007, Number.MAX_SAFE_INTEGER];
    const cases = [...ISO_4217_EXPONENTS.keys()].flatMap((code) => amounts.map((amount) => ({ code, amount })));
    const rows = await db().query<{ code: string; amount: string; text: string }>(
      `SELECT c.code, c.amount::text AS amount, (c.amount * COALESCE(mu.unit, 0.01))::text AS text
         FROM jsonb_to_recordset(:cases::jsonb) AS c(code char(3), amount bigint)
         LEFT JOIN (VALUES ${minorUnitValuesSql()}) AS mu(code, unit) ON mu.code = rtrim(c.code)`,
      { type: QueryTypes.SELECT, replacements: { cases: JSON.stringify(cases) } },
    );
    expect(rows).toHaveLength(cases.length);
    for (const r of rows) expect(r.text, `${r.amount} ${r.code}`).toBe(formatMinorUnits(Number(r.amount), r.code.trim()));
    expect(rows.find((r) => r.code === 'KWD' && r.amount === '12345')!.text).toBe('12.345');
    expect(rows.find((r) => r.code === 'CLF' && r.amount === '5')!.text).toBe('0.0005');
  });
});
