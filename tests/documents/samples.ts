import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The official EN 16931 examples (../shared/samples/einvoice, beside the repository when it is
 * there; not part of the project): each states its own totals, taken here with plain patterns,
 * independently of the reader.
 */
const DIR = path.resolve(process.cwd(), '../shared/samples/einvoice');
export const officialSamples: string[] = existsSync(DIR)
  ? (['ubl', 'cii'] as const).flatMap((d) =>
      existsSync(path.join(DIR, d))
        ? readdirSync(path.join(DIR, d))
            .filter((f) => f.endsWith('.xml'))
            .sort()
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

/** The official samples' bytes, read once. */
export const sampleFiles = (): Buffer[] => officialSamples.map((f) => readFileSync(f));
