import { describe, expect, it } from 'vitest';
import { parsePlainXml } from '../../server/domains/banking/parsers/xml-fast.js';
import { ARRAYS, parseBlock, parseXml } from '../../server/domains/banking/parsers/xml-blocks.js';

/** Fragments the one-pass reader takes: it must give exactly what fast-xml-parser gives. */
const PLAIN = [
  `<Ntry><Amt Ccy="EUR">12.50</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts></Ntry>`,
  `<Ntry>
     <Amt Ccy='EUR'> 1.00 </Amt>
     <BookgDt><Dt>2026-01-05</Dt></BookgDt>
     <NtryDtls><TxDtls><RmtInf><Ustrd>one</Ustrd><Ustrd>two</Ustrd></RmtInf></TxDtls><TxDtls><Refs><EndToEndId>E2</EndToEndId></Refs></TxDtls></NtryDtls>
   </Ntry>`,
  // entities, CDATA, empty and self-closing elements
  `<Ntry><Nm>Smith &amp; Sons &lt;GmbH&gt; &quot;x&quot; &apos;y&apos;</Nm><Ustrd>&amp;lt; stays one level</Ustrd></Ntry>`,
  `<Ntry><Ustrd><![CDATA[a < b & c]]></Ustrd><Ref> <![CDATA[  padded ]]> </Ref></Ntry>`,
  `<Ntry><Ustrd>before <![CDATA[<inside>]]> after</Ustrd><Ustrd><![CDATA[a &amp; b]]></Ustrd></Ntry>`,
  `<Ntry><RmtInf></RmtInf><AddtlNtryInf/><Empty>   </Empty></Ntry>`,
  // namespaces: prefixes removed, declarations dropped, prefixed attributes
  `<c:Ntry xmlns:c="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><c:Amt c:Ccy="EUR">3.00</c:Amt><c:Sts><c:Cd>BOOK</c:Cd></c:Sts></c:Ntry>`,
  `<Ntry xmlns="urn:x"><Amt Ccy="CHF" >7</Amt ><Sts>BOOK</Sts></Ntry >`,
  // repeated elements that are not in ARRAYS become arrays from their second occurrence
  `<Ntry><Ref>1</Ref><Ref>2</Ref><Ref>3</Ref><Bal><Amt Ccy="EUR">1</Amt></Bal></Ntry>`,
  // an element with attributes and children
  `<Ntry><Amt Ccy="EUR" Extra="y"><Inner>1</Inner></Amt></Ntry>`,
  // OFX 2.x transactions, and non-ASCII text
  `<STMTTRN><TRNTYPE>DEBIT</TRNTYPE><DTPOSTED>20260105</DTPOSTED><TRNAMT>-12.50</TRNAMT><NAME>Café Müller — ☕</NAME></STMTTRN>`,
];

/** Fragments it leaves to fast-xml-parser (null), whatever that makes of them. */
const OTHER = [
  `<Ntry><!-- a comment --><Amt Ccy="EUR">1</Amt></Ntry>`,
  `<Ntry><?pi x?><Amt>1</Amt></Ntry>`,
  `<Ntry><Nm>&#65;&#x42; &eacute;</Nm></Ntry>`,
  `<Ntry><Nm>AT&T</Nm></Ntry>`,
  `<Ntry>text<Amt>1</Amt></Ntry>`,
  `<Ntry><Amt Ccy="EUR"/></Ntry>`,
  `<Ntry><Amt Ccy="EUR" Ccy="USD">1</Amt></Ntry>`,
  `<Ntry><Amt Ccy=EUR>1</Amt></Ntry>`,
  `<Ntry><Amt Ccy=" EUR">1</Amt></Ntry>`,
  `<Ntry><Amt>1</Amt>`,
  `<Ntry><Amt>1</Ntry></Amt>`,
  `<Ntry><Amt>1</Amt></Ntry><Ntry/>`,
  `<Ntry><Ämt>1</Ämt></Ntry>`,
  `<Ntry><Amt Ccy="a<b">1</Amt></Ntry>`,
];

describe('the one-pass XML reader of statement elements (xml-fast.ts)', () => {
  it.each(PLAIN)('reads plain XML as fast-xml-parser does: %s', (xml) => {
    const fast = parsePlainXml(xml, ARRAYS);
    expect(fast).not.toBeNull();
    expect(fast).toEqual(parseXml(xml));
  });

  it.each(OTHER)('leaves anything else to fast-xml-parser: %s', (xml) => {
    expect(parsePlainXml(xml, ARRAYS)).toBeNull();
    let expected: unknown;
    try {
      expected = parseXml(xml);
    } catch (err) {
      expect(() => parseBlock(xml)).toThrow((err as Error).message);
      return;
    }
    expect(parseBlock(xml)).toEqual(expected);
  });

  it('reads the attribute-only and comment cases through the general parser with the same result', () => {
    const xml = `<Ntry><!-- c --><Amt Ccy="EUR"/><Nm>&#65;</Nm></Ntry>`;
    expect(parseBlock(xml)).toEqual(parseXml(xml));
  });
});
