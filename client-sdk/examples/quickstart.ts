/**
 * Quick start: log in, create an entry, attach a document, print a report.
 *
 *   npm start                                   # in another terminal; note the admin password it prints
 *   PASSWORD='<printed password>' npx tsx client-sdk/examples/quickstart.ts
 *
 * Environment: BASE_URL (default http://localhost:3000), EMAIL (default admin@example.com),
 * PASSWORD (required). In an application, import from '@finance-entries/client-sdk' instead.
 */
import { createHash } from 'node:crypto';
import { ApiError, createClient, toApiError, type Client } from '../src/index.js';

const BASE_URL = process.env.BASE_URL ?? 'http://localhost:3000';
const EMAIL = process.env.EMAIL ?? 'admin@example.com';
const PASSWORD = process.env.PASSWORD;
const WORKSPACE_NAME = 'SDK quick start';

/** A one-page PDF: the server sniffs the type from these bytes, so it must really be a PDF. */
const RECEIPT_PDF = [
  '%PDF-1.4',
  '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
  '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj',
  '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] >> endobj',
  'trailer << /Root 1 0 R >>',
  '%%EOF',
].join('\n');

/** Cents in major units with the currency's own number of decimals (2 for EUR, 0 for JPY). */
function money(cents: number, currency: string | null): string {
  if (!currency || currency === 'MIXED') return `${cents} cents${currency ? ' (mixed currencies)' : ''}`;
  const format = new Intl.NumberFormat('en', { style: 'currency', currency });
  return format.format(cents / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
}

/** The workspace and project this example writes to, created on the first run. */
async function workspaceAndProject(api: Client): Promise<{ workspaceId: number; projectId: number; currency: string }> {
  const workspaces = await api.trpc.workspaces.list.query();
  const workspace =
    workspaces.find((w) => w.name === WORKSPACE_NAME) ??
    (await api.trpc.workspaces.create.mutate({ name: WORKSPACE_NAME, baseCurrency: 'EUR' }));
  const projects = await api.trpc.projects.list.query({ workspaceId: workspace.id });
  const project = projects[0] ?? (await api.trpc.projects.create.mutate({ workspaceId: workspace.id, name: 'Office', code: 'OFFICE' }));
  return { workspaceId: workspace.id, projectId: project.id, currency: workspace.baseCurrency };
}

async function main(): Promise<void> {
  if (!PASSWORD) throw new Error('Set PASSWORD (and EMAIL, BASE_URL if not the defaults)');
  const api = createClient({ baseUrl: BASE_URL, onLogout: (reason) => console.log(`session ended: ${reason}`) });

  const { user } = await api.session.login(EMAIL, PASSWORD);
  console.log(`logged in as ${user.email} (${user.permissions.length} permissions)`);

  const { workspaceId, projectId, currency } = await workspaceAndProject(api);
  const today = new Date().toISOString().slice(0, 10);
  const entry = await api.trpc.entries.create.mutate({
    projectId,
    entryType: 'EXPENSE',
    amountCents: 4_250,
    baseCurrency: currency,
    entryDate: today,
    description: 'Printer paper',
    reference: `QS-${Date.now()}`,
  });
  console.log(`created entry #${entry.id}: ${entry.entryType} ${money(entry.amountCents, entry.baseCurrency)}, ${entry.entryStatus}`);

  const bytes = new TextEncoder().encode(RECEIPT_PDF);
  const document = await api.files.uploadDocument({
    entryId: entry.id,
    workspaceId,
    documentType: 'BASIS',
    file: bytes,
    fileName: 'receipt.pdf',
  });
  console.log(`uploaded ${document.documentName}: ${document.mimeType}, ${document.fileSize} bytes, ${document.status}`);

  const download = await api.files.downloadDocument({ entryId: entry.id, documentId: document.id });
  const digest = createHash('sha256')
    .update(await download.bytes())
    .digest('hex');
  console.log(`downloaded ${download.fileName}: sha256 ${digest === document.sha256 ? 'matches' : 'DIFFERS'}`);

  const from = `${today.slice(0, 4)}-01-01`;
  const summary = await api.trpc.reports.summary.query({ workspaceId, from, to: today });
  console.log(`\nsummary report of workspace ${workspaceId}, ${from} to ${today}:`);
  console.log(`  entries  ${summary.entryCount}`);
  console.log(`  income   ${money(summary.totalIncomeCents, summary.currency)}`);
  console.log(`  expense  ${money(summary.totalExpenseCents, summary.currency)}`);
  console.log(`  net      ${money(summary.netCents, summary.currency)}`);
  console.log(`  average  ${money(summary.avgTransactionCents, summary.currency)}`);

  await api.session.logout();
}

main().catch((err: unknown) => {
  const apiError = err instanceof ApiError ? err : toApiError(err);
  console.error(apiError ? `failed: ${apiError.status} ${apiError.code}: ${apiError.message}` : err);
  process.exit(1);
});
