import { QueryTypes } from 'sequelize';
import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../server/db/database.js';
import { seedDemo } from '../../server/seed/demo.js';
import { buildUser, login } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';
import { download, sha256 } from './helpers.js';

let api: Api;
beforeAll(async () => {
  api = await startServer();
});

describe('demo seed', () => {
  it(
    'attaches a real PDF receipt (approved BASIS, entry complete), a PNG and one REQUESTED placeholder',
    { timeout: 120_000 },
    async () => {
      const admin = await buildUser({ email: 'seed-admin@example.test' });
      const result = await seedDemo(admin.email, new Date('2026-06-15T12:00:00Z'));
      expect(result.seeded).toBe(true);
      const docs = await db().query<{
        id: string;
        entry_id: number;
        document_type: string;
        status: string;
        mime_type: string | null;
        is_complete: boolean;
      }>(
        `SELECT d.id, d.entry_id, d.document_type, d.status, d.mime_type, e.is_complete
         FROM entry_documents d JOIN entries e ON e.workspace_id = d.workspace_id AND e.id = d.entry_id WHERE e.workspace_id = :ws ORDER BY d.created_at`,
        { replacements: { ws: result.workspaceId }, type: QueryTypes.SELECT },
      );
      expect(docs.map((d) => [d.document_type, d.status, d.mime_type])).toEqual([
        ['BASIS', 'APPROVED', 'application/pdf'],
        ['PAYMENT_PROOF', 'UPLOADED', 'image/png'],
        ['BASIS', 'REQUESTED', null],
        ['BASIS', 'UPLOADED', 'application/xml'], // the inbox's e-invoice, attached automatically
        ['BASIS', 'APPROVED', 'application/pdf'], // the invoice of the line-items entry (server/seed/demo-showcase.ts)
      ]);
      expect(docs[0].is_complete).toBe(true);
      expect(docs[2].is_complete).toBe(false);

      const token = await login(api, admin);
      const receipt = await download(api, token, docs[0].entry_id, docs[0].id);
      expect(receipt.status).toBe(200);
      expect(receipt.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(receipt.bytes.subarray(-6).toString('latin1')).toContain('%%EOF');
      const image = await download(api, token, docs[1].entry_id, docs[1].id);
      expect(image.bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
      const meta = await api.get(`/entries/${docs[1].entry_id}/documents/${docs[1].id}`, { token });
      expect(meta.body.sha256).toBe(sha256(image.bytes));

      // the inbox (CONTRACT §21): one e-invoice auto-attached, a receipt waiting with suggestions, a new supplier's e-invoice
      const inbox = await api.get('/inbox/documents', { token, query: { workspaceId: result.workspaceId! } });
      expect(inbox.status, inbox.text).toBe(200);
      const byName = Object.fromEntries(inbox.body.items.map((d: any) => [d.documentName, d]));
      expect(Object.keys(byName).sort()).toEqual(['bluebox-invoice.xml', 'peppol-invoice.xml', 'receipt-scan.pdf']);
      expect(byName['peppol-invoice.xml']).toMatchObject({
        status: 'ATTACHED',
        autoAttached: true,
        attachedBy: null,
        entryId: docs[3].entry_id,
      });
      expect(byName['peppol-invoice.xml'].extraction).toMatchObject({ status: 'DONE', source: 'EINVOICE' });
      const waiting = byName['receipt-scan.pdf'];
      expect(waiting).toMatchObject({ status: 'UNATTACHED', extraction: { status: 'DONE', source: 'PDF_TEXT' } });
      const suggestions = await api.get(`/inbox/documents/${waiting.id}/suggestions`, { token });
      expect(suggestions.status).toBe(200);
      expect(suggestions.body.length).toBeGreaterThan(0);
      const [best] = suggestions.body;
      const entry = (await api.get(`/entries/${best.entryId}`, { token })).body;
      expect(entry.amountCents).toBe(waiting.extraction.totalCents);
      expect(best.reasons.map((r: any) => r.kind)).toEqual(expect.arrayContaining(['AMOUNT', 'DATE']));
      expect(byName['bluebox-invoice.xml']).toMatchObject({
        status: 'UNATTACHED',
        extraction: { status: 'DONE', supplier: { name: 'Bluebox Coworking GmbH' }, totalCents: 18921 },
      });
    },
  );
});
