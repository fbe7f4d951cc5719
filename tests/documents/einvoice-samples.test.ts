import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFile } from '../../server/domains/documents/extraction/read-file.js';
import { officialSamples as samples, stated } from './samples.js';

/** The official EN 16931 examples (./samples.ts): each is read to the cent of what it states. */
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
