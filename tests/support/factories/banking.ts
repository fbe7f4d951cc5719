import { expect } from 'vitest';
import { expectOk } from '../entries.js';
import type { Api, ApiResponse } from '../http.js';
import { entryWorld, type EntryWorld } from './entries.js';

export type BankWorld = EntryWorld & { account: any };

/** A workspace with an entry world and one EUR bank account held by party 0 (auto-match off unless asked). */
export async function bankWorld(api: Api, account: Record<string, unknown> = {}): Promise<BankWorld> {
  const w = await entryWorld(api);
  const res = await api.post(
    '/bank-accounts',
    {
      workspaceId: w.workspaceId,
      name: 'Main account',
      currency: 'EUR',
      projectId: w.projectId,
      partyId: w.parties[0],
      autoMatch: false,
      ...account,
    },
    { token: w.token },
  );
  expectOk(res, 'create bank account');
  return { ...w, account: res.body };
}

export async function importFile(
  w: { api: Api; token: string },
  accountId: string,
  content: string | Buffer,
  opts: { format?: string; csvMapping?: unknown; fileName?: string } = {},
): Promise<ApiResponse> {
  const form = new FormData();
  form.append('file', new Blob([typeof content === 'string' ? Buffer.from(content, 'utf8') : content]), opts.fileName ?? 'statement.txt');
  if (opts.format) form.append('format', opts.format);
  if (opts.csvMapping !== undefined)
    form.append('csvMapping', typeof opts.csvMapping === 'string' ? opts.csvMapping : JSON.stringify(opts.csvMapping));
  return w.api.request('POST', `/bank-accounts/${accountId}/statements`, { token: w.token, rawBody: form });
}

export async function imported(w: BankWorld, content: string, opts: Parameters<typeof importFile>[3] = {}): Promise<any> {
  const res = await importFile(w, w.account.id, content, opts);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/* ---------- statement files, generated ---------- */

export type Tx = {
  date: string;
  amount: string; // signed decimal, '.' separator
  name?: string;
  memo?: string;
  ref?: string;
  id?: string;
  iban?: string;
  e2e?: string;
};

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

export function camt053(txs: Tx[], opts: { currency?: string; opening?: string; closing?: string; entryCurrency?: string } = {}): string {
  const ccy = opts.currency ?? 'EUR';
  const abs = (a: string) => a.replace(/^-/, '');
  const ind = (a: string) => (a.startsWith('-') ? 'DBIT' : 'CRDT');
  const bal = (code: string, amount: string) =>
    `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="${ccy}">${abs(amount)}</Amt><CdtDbtInd>${ind(amount)}</CdtDbtInd><Dt><Dt>2026-01-01</Dt></Dt></Bal>`;
  const entries = txs
    .map((t) => {
      const party = t.amount.startsWith('-') ? 'Cdtr' : 'Dbtr';
      return `
      <Ntry>
        <Amt Ccy="${opts.entryCurrency ?? ccy}">${abs(t.amount)}</Amt>
        <CdtDbtInd>${ind(t.amount)}</CdtDbtInd>
        <Sts><Cd>BOOK</Cd></Sts>
        <BookgDt><Dt>${t.date}</Dt></BookgDt>
        <ValDt><Dt>${t.date}</Dt></ValDt>
        ${t.id ? `<AcctSvcrRef>${esc(t.id)}</AcctSvcrRef>` : ''}
        <NtryDtls><TxDtls>
          <Refs><EndToEndId>${esc(t.e2e ?? 'NOTPROVIDED')}</EndToEndId></Refs>
          ${t.name ? `<RltdPties><${party}><Nm>${esc(t.name)}</Nm></${party}>${t.iban ? `<${party}Acct><Id><IBAN>${t.iban}</IBAN></Id></${party}Acct>` : ''}</RltdPties>` : ''}
          <RmtInf>${t.memo ? `<Ustrd>${esc(t.memo)}</Ustrd>` : ''}${t.ref ? `<Strd><CdtrRefInf><Ref>${esc(t.ref)}</Ref></CdtrRefInf></Strd>` : ''}</RmtInf>
        </TxDtls></NtryDtls>
      </Ntry>`;
    })
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>MSG1</MsgId><CreDtTm>2026-02-01T00:00:00</CreDtTm></GrpHdr>
    <Stmt>
      <Id>STMT1</Id>
      <Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>${ccy}</Ccy></Acct>
      ${opts.opening !== undefined ? bal('OPBD', opts.opening) : ''}
      ${opts.closing !== undefined ? bal('CLBD', opts.closing) : ''}${entries}
    </Stmt>
  </BkToCstmrStmt>
</Document>
`;
}

export function ofxSgml(txs: Tx[], opts: { currency?: string; closing?: string } = {}): string {
  const trns = txs
    .map(
      (t) => `<STMTTRN>
<TRNTYPE>${t.amount.startsWith('-') ? 'DEBIT' : 'CREDIT'}
<DTPOSTED>${t.date.replace(/-/g, '')}120000[0:GMT]
<TRNAMT>${t.amount}
${t.id ? `<FITID>${t.id}\n` : ''}${t.name ? `<NAME>${t.name}\n` : ''}${t.memo ? `<MEMO>${t.memo}\n` : ''}${t.ref ? `<REFNUM>${t.ref}\n` : ''}</STMTTRN>`,
    )
    .join('\n');
  return `OFXHEADER:100
DATA:OFXSGML
VERSION:102
SECURITY:NONE
ENCODING:USASCII
CHARSET:1252
COMPRESSION:NONE
OLDFILEUID:NONE
NEWFILEUID:NONE

<OFX>
<BANKMSGSRSV1>
<STMTTRNRS>
<TRNUID>1
<STMTRS>
<CURDEF>${opts.currency ?? 'EUR'}
<BANKACCTFROM>
<BANKID>123
<ACCTID>456
<ACCTTYPE>CHECKING
</BANKACCTFROM>
<BANKTRANLIST>
<DTSTART>20260101
<DTEND>20260131
${trns}
</BANKTRANLIST>
${opts.closing ? `<LEDGERBAL>\n<BALAMT>${opts.closing}\n<DTASOF>20260131\n</LEDGERBAL>\n` : ''}</STMTRS>
</STMTTRNRS>
</BANKMSGSRSV1>
</OFX>
`;
}

export function ofxXml(txs: Tx[], opts: { currency?: string } = {}): string {
  const trns = txs
    .map(
      (t) =>
        `<STMTTRN><TRNTYPE>OTHER</TRNTYPE><DTPOSTED>${t.date.replace(/-/g, '')}</DTPOSTED><TRNAMT>${t.amount}</TRNAMT>${t.id ? `<FITID>${t.id}</FITID>` : ''}${t.name ? `<NAME>${esc(t.name)}</NAME>` : ''}${t.memo ? `<MEMO>${esc(t.memo)}</MEMO>` : ''}${t.ref ? `<CHECKNUM>${t.ref}</CHECKNUM>` : ''}</STMTTRN>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<?OFX OFXHEADER="200" VERSION="220" SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>
<OFX><BANKMSGSRSV1><STMTTRNRS><TRNUID>1</TRNUID><STMTRS><CURDEF>${opts.currency ?? 'EUR'}</CURDEF>
<BANKTRANLIST><DTSTART>20260101</DTSTART><DTEND>20260131</DTEND>
${trns}
</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>
`;
}

export const CSV_MAPPING = {
  dateColumn: 'Date',
  amountColumn: 'Amount',
  descriptionColumn: 'Text',
  counterpartyColumn: 'Payee',
  referenceColumn: 'Ref',
  dateFormat: 'DD.MM.YYYY',
  decimalSeparator: ',',
};

/** A German-style CSV: ; delimiter, DD.MM.YYYY, decimal comma. */
export function csvDe(txs: Tx[]): string {
  const date = (d: string) => d.split('-').reverse().join('.');
  const rows = txs.map((t) =>
    [date(t.date), t.amount.replace('.', ','), t.memo ?? '', t.name ?? '', t.ref ?? ''].map((c) => `"${c}"`).join(';'),
  );
  return ['Date;Amount;Text;Payee;Ref', ...rows].join('\r\n') + '\r\n';
}
