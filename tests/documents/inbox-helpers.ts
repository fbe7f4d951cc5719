import { expect } from 'vitest';
import { drainExtractions } from '../../server/domains/documents/index.js';
import type { Api, ApiResponse } from '../support/http.js';
import { ubl, type EInvoice, type Party } from './corpus/einvoice-writers.js';

/** POST /inbox/documents (multipart `workspaceId`, `file`). */
export function inboxUpload(
  api: Api,
  token: string,
  workspaceId: number | string | null,
  bytes: Buffer,
  name = 'invoice.xml',
  type?: string,
): Promise<ApiResponse> {
  const fd = new FormData();
  if (workspaceId !== null) fd.append('workspaceId', String(workspaceId));
  fd.append('file', new Blob([new Uint8Array(bytes)], type ? { type } : {}), name);
  return api.request('POST', '/inbox/documents', { token, rawBody: fd });
}

export async function inboxed(api: Api, token: string, workspaceId: number, bytes: Buffer, name = 'invoice.xml'): Promise<any> {
  const res = await inboxUpload(api, token, workspaceId, bytes, name);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** Runs the background reading now (what the pg-boss worker does after commit). */
export const readNow = () => drainExtractions();

const seller: Party = { name: 'Hansen Bürobedarf GmbH', vatId: 'DE811111111', country: 'DE' };
const buyer: Party = { name: 'Our Company Ltd', vatId: 'GB999999973', country: 'GB' };

/** A UBL invoice of `totalCents` (net + 19 % tax) from `sellerName`. */
export function invoiceXml(o: {
  number: string;
  issueDate: string;
  totalCents: number;
  currency?: string;
  sellerName?: string;
  sellerVat?: string;
  credit?: boolean;
}): Buffer {
  const dec = (c: number) => `${Math.trunc(c / 100)}.${String(c % 100).padStart(2, '0')}`;
  const tax = Math.round((o.totalCents * 19) / 119);
  const inv: EInvoice = {
    number: o.number,
    credit: o.credit,
    issueDate: o.issueDate,
    currency: o.currency ?? 'USD',
    seller: { ...seller, name: o.sellerName ?? seller.name, vatId: o.sellerVat ?? seller.vatId },
    buyer,
    lines: [{ name: 'Goods', quantity: '1', price: dec(o.totalCents - tax), net: dec(o.totalCents - tax), vatRate: '19' }],
    net: dec(o.totalCents - tax),
    tax: dec(tax),
    total: dec(o.totalCents),
    payable: dec(o.totalCents),
  };
  return Buffer.from(ubl(inv), 'utf8');
}

export async function extraction(api: Api, token: string, id: string): Promise<any> {
  const res = await api.get(`/documents/${id}/extraction`, { token });
  expect(res.status, res.text).toBe(200);
  return res.body;
}
