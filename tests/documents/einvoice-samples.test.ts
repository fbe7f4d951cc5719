import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFile } from '../../server/domains/documents/extraction/read-file.js';

/**
 * The official EN 16931 examples (../shared/samples/einvoice, beside the repository when it is
 * there; not part of the project): each states its own totals, which the reader must return to the
 * cent. The stated values are taken here with plain patterns, independently of the reader.
 */
const DIR = path.resolve(process.cwd(), '../shared/samples/einvoice');
const samples = existsSync(DIR)
  ? (['ubl', 'cii'] as const).flatMap((d) =>
      existsSync(path.join(DIR, d))
        ? readdirSync(path.join(DIR, d))
            .filter((f) => f.endsWith('.xml'))
            .map((f) => path.join(DIR, d, f))
        : [],
    )
  : [];

const cents = (v: string) => Math.round(Number(v) * 100);

/** What the file states: UBL's LegalMonetaryTotal, CII's header monetary summation, the currency and issue date. */
export function stated(xml: string): { currency: string; total: number; net: number; issueDate: string } {
  const ubl = /<cbc:TaxInclusiveAmount[^>]*>([^<]+)</.exec(xml);
  if (ubl) {
    return {
      currency: /<cbc:DocumentCurrencyCode>([^<]+)</.exec(xml)![1].trim(),
      total: cents(ubl[1]),
      net: cents(/<cbc:TaxExclusiveAmount[^>]*>([^<]+)</.exec(xml)![1]),
      issueDate: /<cbc:IssueDate>([^<]+)</.exec(xml)![1].trim(),
    };
  }
  const d = /<ram:IssueDateTime>\s*<udt:DateTimeString[^>]*>(\d{4})(\d{2})(\d{2})</.exec(xml)!;
  return {
    currency: /<ram:InvoiceCurrencyCode>([^<]+)</.exec(xml)![1].trim(),
    total: cents(/<ram:GrandTotalAmount[^>]*>([^<]+)</.exec(xml)![1]),
    net: cents(/<ram:TaxBasisTotalAmount[^>]*>([^<]+)</.exec(xml)![1]),
    issueDate: `${d[1]}-${d[2]}-${d[3]}`,
  };
}

describe('the official EN 16931 examples', () => {
  it('the independent reading of stated totals works on a UBL and a CII text', () => {
    expect(
      stated(
        '<cbc:IssueDate>2026-01-02</cbc:IssueDate><cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode><cbc:TaxExclusiveAmount currencyID="EUR">10.00</cbc:TaxExclusiveAmount><cbc:TaxInclusiveAmount currencyID="EUR">11.90</cbc:TaxInclusiveAmount>',
      ),
    ).toEqual({ currency: 'EUR', total: 1190, net: 1000, issueDate: '2026-01-02' });
    expect(
      stated(
        '<ram:IssueDateTime><udt:DateTimeString format="102">20260102</udt:DateTimeString></ram:IssueDateTime><ram:InvoiceCurrencyCode>NOK</ram:InvoiceCurrencyCode><ram:TaxBasisTotalAmount>5</ram:TaxBasisTotalAmount><ram:GrandTotalAmount>6.25</ram:GrandTotalAmount>',
      ),
    ).toEqual({ currency: 'NOK', total: 625, net: 500, issueDate: '2026-01-02' });
  });

  it.each(samples.map((f) => [path.basename(f), f]))('%s is read to the cent', async (_name, file) => {
    const bytes = readFileSync(file);
    const outcome = await readFile(bytes, 'application/xml');
    expect(outcome.status).toBe('DONE');
    if (outcome.status !== 'DONE') return;
    const s = stated(bytes.toString('utf8'));
    expect(outcome.read).toMatchObject({ currency: s.currency, totalCents: s.total, netCents: s.net, issueDate: s.issueDate });
    expect(outcome.read.documentNumber).not.toBeNull();
    expect(outcome.read.supplier.name).not.toBeNull();
  });
});
