import { QueryTypes } from 'sequelize';
import { db } from '../db/database.js';
import { formatMinorUnits } from '../lib/money.js';
import type { Actor } from '../lib/scope.js';
import { uploadDocument } from '../domains/documents/document-files.service.js';
import { approveDocument, requestDocument } from '../domains/documents/documents.service.js';
import { makePng, makeReceiptPdf } from './demo-files.js';
import type { DemoWorkspace } from './demo-entries.js';

type Candidate = { id: number; entry_date: string; description: string | null; amount_cents: number; base_currency: string };

/**
 * Real documents through the documents service: a PDF receipt (approved, so that entry is
 * complete), a PNG payment proof, and one REQUESTED placeholder on another entry.
 */
export async function seedDemoDocuments(actor: Actor, ws: DemoWorkspace): Promise<void> {
  const entries = await db().query<Candidate>(
    `SELECT e.id, e.entry_date::text, e.description, e.amount_cents, e.base_currency
       FROM entries e
      WHERE e.workspace_id = :ws AND e.entry_type = 'EXPENSE' AND e.entry_status NOT IN ('VOIDED', 'CANCELLED')
        AND NOT EXISTS (SELECT 1 FROM entry_links l WHERE l.derived_entry_id = e.id)
      ORDER BY e.entry_date DESC, e.id DESC LIMIT 2`,
    { replacements: { ws: ws.workspaceId }, type: QueryTypes.SELECT },
  );
  if (entries.length < 2) return;
  const [receipted, pending] = entries;
  const currency = receipted.base_currency.trim();
  const total = `${formatMinorUnits(receipted.amount_cents, currency)} ${currency}`;
  const pdf = await makeReceiptPdf({
    title: 'Receipt',
    issuer: 'Acme Supplies GmbH',
    date: receipted.entry_date,
    lines: [{ description: receipted.description ?? 'Purchase', amount: total }],
    total,
  });
  const receipt = await uploadDocument(actor, {
    entryId: receipted.id,
    workspaceId: ws.workspaceId,
    documentType: 'BASIS',
    file: { bytes: pdf, fileName: `receipt-${receipted.entry_date}.pdf`, declaredType: 'application/pdf' },
  });
  await approveDocument(actor, receipted.id, receipt.id);
  const png = makePng(32, 32, (x, y) => [40 + x * 6, 120 + y * 3, 200 - x * 2]);
  await uploadDocument(actor, {
    entryId: receipted.id,
    workspaceId: ws.workspaceId,
    documentType: 'PAYMENT_PROOF',
    file: { bytes: png, fileName: 'bank-transfer-confirmation.png', declaredType: 'image/png' },
  });
  await requestDocument(actor, {
    entryId: pending.id,
    documentName: 'Supplier invoice',
    documentType: 'BASIS',
    comment: 'Please upload the original invoice for this expense.',
  });
}
