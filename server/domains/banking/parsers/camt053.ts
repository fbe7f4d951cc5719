import { LineBatcher, textFields, type ParseContext, type StatementHeader } from './types.js';
import { at, parseBlock, listAt, parseXml, splitBlocks, textAt } from './xml-blocks.js';
import { parseAmount, parseIsoDateStart } from './values.js';

type Money = { cents: number; currency: string | undefined } | { error: string };

/** ISO 20022 amounts are unsigned decimals: the sign comes from CdtDbtInd alone (CONTRACT §14). */
const UNSIGNED_DECIMAL = /^\d+(\.\d+)?$/;

function money(amt: unknown, indicator: string | undefined, currency: string): Money {
  const text = typeof amt === 'string' ? amt : (textAt(amt) ?? '');
  const ccy = amt && typeof amt === 'object' ? ((amt as Record<string, unknown>)['@Ccy'] as string | undefined) : undefined;
  if (!UNSIGNED_DECIMAL.test(text.trim()))
    return { error: `Amt "${text.trim().slice(0, 40)}" is not an unsigned decimal (the sign comes from CdtDbtInd alone)` };
  const parsed = parseAmount(text, '.', currency);
  if ('error' in parsed) return parsed;
  if (indicator !== 'CRDT' && indicator !== 'DBIT') return { error: `CdtDbtInd "${indicator ?? ''}" is neither CRDT nor DBIT` };
  return { cents: indicator === 'DBIT' ? -parsed.cents : parsed.cents, currency: ccy };
}

const nonEmpty = (s: string | undefined) => (s && s.trim() && s.trim() !== 'NOTPROVIDED' ? s.trim() : undefined);

/** ISO 20022 camt.053: each Stmt's header (account currency, balances, period) and its Ntry elements one at a time. */
export async function parseCamt053(text: string, ctx: ParseContext): Promise<StatementHeader> {
  const header: StatementHeader = {
    currency: null,
    openingBalanceCents: null,
    closingBalanceCents: null,
    periodStart: null,
    periodEnd: null,
  };
  const batcher = new LineBatcher(ctx);
  const statements = splitBlocks(text, 'Stmt');
  let seen = 0;
  for (const stmt of statements.blocks()) {
    seen++;
    await parseStatement(stmt.xml, stmt.lineNo, header, batcher, ctx);
  }
  if (seen === 0) ctx.issues.add(1, 'Not a camt.053 statement: no Stmt element');
  await batcher.flush();
  return header;
}

async function parseStatement(xml: string, firstLine: number, header: StatementHeader, batcher: LineBatcher, ctx: ParseContext) {
  const entries = splitBlocks(xml, 'Ntry', firstLine);
  let stmt: unknown;
  try {
    stmt = at(parseXml(entries.rest()), 'Stmt');
  } catch (err) {
    ctx.issues.add(firstLine, `Unreadable XML: ${(err as Error).message.slice(0, 200)}`);
    return;
  }
  const currency = nonEmpty(textAt(stmt, 'Acct', 'Ccy'));
  if (currency && currency !== ctx.currency) ctx.issues.add(firstLine, `The statement is in ${currency}, the account in ${ctx.currency}`);
  header.currency ??= currency ?? null;
  let opening: number | null = null;
  let closing: number | null = null;
  for (const bal of listAt(stmt, 'Bal')) {
    const code = textAt(bal, 'Tp', 'CdOrPrtry', 'Cd');
    if (code !== 'OPBD' && code !== 'PRCD' && code !== 'CLBD') continue;
    const m = money(at(bal, 'Amt'), textAt(bal, 'CdtDbtInd'), ctx.currency);
    if ('error' in m) {
      ctx.issues.add(firstLine, `Balance ${code}: ${m.error}`);
      continue;
    }
    if (code === 'CLBD') closing = m.cents;
    else opening ??= m.cents;
  }
  if (header.openingBalanceCents === null) header.openingBalanceCents = opening;
  if (closing !== null) header.closingBalanceCents = closing;
  const from = parseIsoDateStart(textAt(stmt, 'FrToDt', 'FrDtTm'));
  const to = parseIsoDateStart(textAt(stmt, 'FrToDt', 'ToDtTm'));

  let sum = 0;
  let position = 0;
  let minDate: string | null = null;
  let maxDate: string | null = null;
  for (const block of entries.blocks()) {
    position++;
    let ntry: unknown;
    try {
      ntry = at(parseBlock(block.xml), 'Ntry');
    } catch (err) {
      ctx.issues.add(block.lineNo, `Unreadable XML: ${(err as Error).message.slice(0, 200)}`);
      continue;
    }
    const status = textAt(ntry, 'Sts') ?? textAt(ntry, 'Sts', 'Cd');
    if (status === 'PDNG' || status === 'INFO') continue; // not booked: neither a line nor part of the balance
    const indicator = textAt(ntry, 'CdtDbtInd');
    const m = money(at(ntry, 'Amt'), indicator, ctx.currency);
    const bookingDate = parseIsoDateStart(textAt(ntry, 'BookgDt', 'Dt') ?? textAt(ntry, 'BookgDt', 'DtTm'));
    if ('error' in m) ctx.issues.add(block.lineNo, `Entry ${position} (Ntry): ${m.error}`);
    else if (m.currency && m.currency !== ctx.currency)
      ctx.issues.add(block.lineNo, `The entry is in ${m.currency}, the account in ${ctx.currency}`);
    if (!bookingDate) ctx.issues.add(block.lineNo, 'The entry has no valid booking date (BookgDt)');
    if ('error' in m || !bookingDate) continue;
    sum += m.cents;
    if (!minDate || bookingDate < minDate) minDate = bookingDate;
    if (!maxDate || bookingDate > maxDate) maxDate = bookingDate;
    const tx = at(ntry, 'NtryDtls', 'TxDtls');
    const moneyIn = m.cents > 0;
    const party = moneyIn ? 'Dbtr' : 'Cdtr';
    const structured = listAt(tx, 'RmtInf', 'Strd')
      .map((s) => nonEmpty(textAt(s, 'CdtrRefInf', 'Ref')))
      .find(Boolean);
    await batcher.push({
      lineNo: block.lineNo,
      bookingDate,
      valueDate: parseIsoDateStart(textAt(ntry, 'ValDt', 'Dt') ?? textAt(ntry, 'ValDt', 'DtTm')),
      amountCents: m.cents,
      ...textFields({
        externalId: nonEmpty(textAt(ntry, 'AcctSvcrRef')) ?? nonEmpty(textAt(ntry, 'NtryRef')),
        counterpartyName: textAt(tx, 'RltdPties', party, 'Nm') ?? textAt(tx, 'RltdPties', party, 'Pty', 'Nm'),
        counterpartyAccount:
          textAt(tx, 'RltdPties', `${party}Acct`, 'Id', 'IBAN') ?? textAt(tx, 'RltdPties', `${party}Acct`, 'Id', 'Othr', 'Id'),
        description: listAt(tx, 'RmtInf', 'Ustrd')
          .map((u) => textAt(u) ?? '')
          .filter(Boolean)
          .join(' '),
        reference: structured ?? nonEmpty(textAt(tx, 'Refs', 'EndToEndId')),
      }),
    });
  }
  if (opening !== null && closing !== null && opening + sum !== closing) {
    ctx.issues.add(firstLine, `Opening balance ${opening} + lines ${sum} = ${opening + sum}, but the closing balance is ${closing}`);
  }
  const start = from ?? minDate;
  const end = to ?? maxDate;
  if (start && (!header.periodStart || start < header.periodStart)) header.periodStart = start;
  if (end && (!header.periodEnd || end > header.periodEnd)) header.periodEnd = end;
}
