import type { StatementFormat } from '../../../../shared/contracts/banking.js';

/** CONTRACT §14: OFX 1.x SGML or 2.x XML, ISO 20022 camt.053 XML, else CSV. */
export function detectFormat(head: string): StatementFormat {
  const start = head.slice(0, 8192).replace(/^\uFEFF/, '');
  if (/^\s*OFXHEADER\s*:/i.test(start) || /<\?OFX\b/i.test(start) || /<OFX\s*>/i.test(start)) return 'OFX';
  if (/camt\.053/.test(start) || /<(?:[\w.-]+:)?BkToCstmrStmt[\s>]/.test(start)) return 'CAMT053';
  return 'CSV';
}
