import { LineBatcher, textFields, type ParseContext, type StatementHeader } from './types.js';
import { at, parseBlock, countNewlines, parseXml, splitBlocks, textAt } from './xml-blocks.js';
import { parseAmount, parseOfxDate } from './values.js';

const ENTITY = /^&(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/;

/**
 * OFX 1.x SGML → XML: leaf elements there have no end tag (`<TRNAMT>-12.50`), so each start tag
 * followed by text gets its end tag unless the file already wrote it. Newlines are kept, so line
 * numbers stay those of the file.
 */
export function sgmlToXml(body: string): string {
  const token = /<(\/?)([A-Za-z0-9_.]+)\s*>([^<]*)/g;
  let out = '';
  let skipClose: string | null = null;
  for (let m = token.exec(body); m; m = token.exec(body)) {
    const [, slash, name, text] = m;
    if (slash) {
      if (skipClose === name) {
        skipClose = null;
        out += text;
        continue;
      }
      skipClose = null;
      out += `</${name}>${text}`;
      continue;
    }
    const value = text.trimEnd();
    if (value.trim() === '') {
      skipClose = null;
      out += `<${name}>${text}`;
      continue;
    }
    const escaped = value.replace(/&/g, (amp, i: number) => (ENTITY.test(value.slice(i)) ? amp : '&amp;')).replace(/>/g, '&gt;');
    out += `<${name}>${escaped}</${name}>${text.slice(value.length)}`;
    skipClose = name;
  }
  return out;
}

/** OFX 1.x (SGML) or 2.x (XML) bank statement: STMTTRN elements one at a time. */
export async function parseOfx(text: string, ctx: ParseContext): Promise<StatementHeader> {
  const start = text.search(/<OFX\s*>/i);
  const header: StatementHeader = {
    currency: null,
    openingBalanceCents: null,
    closingBalanceCents: null,
    periodStart: null,
    periodEnd: null,
  };
  if (start < 0) {
    ctx.issues.add(1, 'Not an OFX file: no <OFX> element');
    return header;
  }
  const firstLine = 1 + countNewlines(text, 0, start);
  const body = text.slice(start);
  const xml = /<\?xml/i.test(text.slice(0, start)) ? body : sgmlToXml(body);
  const parts = splitBlocks(xml, 'STMTTRN', firstLine);
  let root: unknown;
  try {
    root = parseXml(parts.rest());
  } catch (err) {
    ctx.issues.add(firstLine, `Unreadable OFX: ${(err as Error).message.slice(0, 200)}`);
    return header;
  }
  const stmtrs = at(root, 'OFX', 'BANKMSGSRSV1', 'STMTTRNRS', 'STMTRS') ?? at(root, 'OFX', 'CREDITCARDMSGSRSV1', 'CCSTMTTRNRS', 'CCSTMTRS');
  const currency = textAt(stmtrs, 'CURDEF')?.trim();
  if (currency && currency !== ctx.currency) ctx.issues.add(firstLine, `The statement is in ${currency}, the account in ${ctx.currency}`);
  header.currency = currency ?? null;
  const ledger = textAt(stmtrs, 'LEDGERBAL', 'BALAMT');
  if (ledger !== undefined) {
    const bal = parseAmount(ledger, ledger.includes(',') && !ledger.includes('.') ? ',' : '.', ctx.currency);
    if ('error' in bal) ctx.issues.add(firstLine, `LEDGERBAL: ${bal.error}`);
    else header.closingBalanceCents = bal.cents;
  }
  header.periodStart = parseOfxDate(textAt(stmtrs, 'BANKTRANLIST', 'DTSTART'));
  header.periodEnd = parseOfxDate(textAt(stmtrs, 'BANKTRANLIST', 'DTEND'));

  const batcher = new LineBatcher(ctx);
  const fitids = new Map<string, { lineNo: number; content: string }>();
  for (const block of parts.blocks()) {
    let trn: unknown;
    try {
      trn = at(parseBlock(block.xml), 'STMTTRN');
    } catch (err) {
      ctx.issues.add(block.lineNo, `Unreadable OFX: ${(err as Error).message.slice(0, 200)}`);
      continue;
    }
    const rawAmount = textAt(trn, 'TRNAMT') ?? '';
    const amount = parseAmount(rawAmount, rawAmount.includes(',') && !rawAmount.includes('.') ? ',' : '.', ctx.currency);
    const bookingDate = parseOfxDate(textAt(trn, 'DTPOSTED'));
    if ('error' in amount) ctx.issues.add(block.lineNo, `TRNAMT: ${amount.error}`);
    if (!bookingDate) ctx.issues.add(block.lineNo, 'DTPOSTED is missing or not a date');
    if ('error' in amount || !bookingDate) continue;
    const name = textAt(trn, 'NAME');
    const line = {
      lineNo: block.lineNo,
      bookingDate,
      valueDate: parseOfxDate(textAt(trn, 'DTAVAIL')),
      amountCents: amount.cents,
      ...textFields({
        externalId: textAt(trn, 'FITID'),
        counterpartyName: name,
        description: textAt(trn, 'MEMO') ?? name,
        reference: textAt(trn, 'CHECKNUM') ?? textAt(trn, 'REFNUM'),
      }),
    };
    if (line.externalId !== null) {
      // CONTRACT §14: an identical repeat is a duplicate (skipped by the import); a FITID naming two different transactions is refused
      const { lineNo, ...fields } = line;
      const content = JSON.stringify(fields);
      const first = fitids.get(line.externalId);
      if (!first) fitids.set(line.externalId, { lineNo, content });
      else if (first.content !== content)
        ctx.issues.add(lineNo, `FITID "${line.externalId}" appears twice with different content (lines ${first.lineNo} and ${lineNo})`);
    }
    await batcher.push(line);
  }
  await batcher.flush();
  return header;
}
