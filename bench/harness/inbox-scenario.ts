/**
 * The inbox end to end (issue 53, deliverable 5; CONTRACT §21): documents uploaded through
 * `POST /inbox/documents` (multipart) by 10 clients back to back, each timed from the start of its
 * upload request until its extraction is DONE, as the service's background reading records it.
 * - e-invoices: the official EN 16931 samples (../shared/samples/einvoice, UBL and CII), each upload
 *   made a distinct document (its own content, hence its own sha256 and reading) by a unique invoice
 *   number; 1,000 in the full run; target ≥ 100 documents/s and p95 ≤ 1 s;
 * - text PDFs: pdfkit invoices as in the 'extraction text PDF' row, each with its own number; target
 *   ≥ 30 documents/s.
 * DONE is watched in the database (one query every WATCH_MS over the documents still pending), so a
 * latency includes up to WATCH_MS of watching. documents/s is the number of documents over the time from
 * the first upload's start to the last DONE. The baseline is the same files read one after the other
 * in this process (readFile alone: no HTTP, storage, queue or PostgreSQL).
 * The scenario deletes its inbox documents afterwards (DELETE /inbox/documents/{id}).
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { readFile } from '../../server/domains/documents/extraction/read-file.js';
import { summarize } from './load.js';
import type { BenchContext } from './scenarios.js';
import { cpuSecondsBetween, cpuSecondsByPid } from './server-process.js';
import type { ResultRow } from './table.js';

const CLIENTS = 10;
const WATCH_MS = 5;
const EINVOICE_TARGET = { perSecond: 100, p95Ms: 1000 };
const PDF_TARGET = { perSecond: 30 };

type Upload = { bytes: Buffer; name: string; mime: string; sha256: string };

const SAMPLES = path.resolve(process.cwd(), '../shared/samples/einvoice');

/** The official samples, UBL and CII. */
function einvoiceSamples(): { name: string; xml: string }[] {
  if (!existsSync(SAMPLES)) throw new Error(`the EN 16931 samples are not at ${SAMPLES}`);
  return (['ubl', 'cii'] as const).flatMap((d) =>
    readdirSync(path.join(SAMPLES, d))
      .filter((f) => f.endsWith('.xml'))
      .sort()
      .map((f) => ({ name: f, xml: readFileSync(path.join(SAMPLES, d, f), 'utf8') })),
  );
}

/** The sample with its invoice number (UBL: the document's first cbc:ID; CII: ExchangedDocument's ram:ID) made unique. */
function distinctInvoice(sample: { name: string; xml: string }, suffix: string): Buffer {
  let changed = false;
  const mark = (_m: string, open: string, id: string) => ((changed = true), `${open}${id}-${suffix}`);
  const xml = sample.xml.includes('<rsm:ExchangedDocument>')
    ? sample.xml.replace(/(<rsm:ExchangedDocument>\s*<ram:ID>)([^<]*)/, mark)
    : sample.xml.replace(/(<cbc:ID>)([^<]*)/, mark);
  if (!changed) throw new Error(`${sample.name}: no invoice number found to vary`);
  return Buffer.from(xml, 'utf8');
}

const upload = (bytes: Buffer, name: string, mime: string): Upload => ({
  bytes,
  name,
  mime,
  sha256: createHash('sha256').update(bytes).digest('hex'),
});

export function einvoiceUploads(n: number, run: string): Upload[] {
  const samples = einvoiceSamples();
  return Array.from({ length: n }, (_, i) => {
    const s = samples[i % samples.length];
    return upload(distinctInvoice(s, `${run}-${i}`), s.name, 'application/xml');
  });
}

type Outcome = { startedAt: number; uploadedAt: number; doneAt: number; status: string; id: string };

/**
 * Uploads every file through POST /inbox/documents with CLIENTS clients back to back and records when each
 * one's reading left PENDING (watched in document_extractions).
 */
export async function uploadAndWatch(c: BenchContext, db: pg.Client, files: Upload[], workspaceId: number) {
  const outcomes = new Map<string, Outcome>();
  const pending = new Set<string>();
  let failedUploads = 0;
  let next = 0;
  let uploading = true;
  const started = performance.now();
  const clients = Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < files.length) {
        const f = files[next++];
        const form = new FormData();
        form.set('workspaceId', String(workspaceId));
        form.set('file', new Blob([f.bytes], { type: f.mime }), f.name);
        const t0 = performance.now();
        const res = await fetch(`${c.server.base}/inbox/documents`, {
          method: 'POST',
          headers: { authorization: `Bearer ${c.token}` },
          body: form,
        });
        const body = (await res.json()) as { id?: string; sha256?: string };
        if (res.status !== 200 || body.sha256 !== f.sha256) {
          failedUploads++;
          c.log(`    upload ${f.name}: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
          continue;
        }
        outcomes.set(f.sha256, { startedAt: t0, uploadedAt: performance.now(), doneAt: NaN, status: 'PENDING', id: body.id! });
        pending.add(f.sha256);
      }
    }),
  ).finally(() => (uploading = false));
  const deadline = performance.now() + 60_000 + files.length * 200;
  const watch = (async () => {
    while ((uploading || pending.size > 0) && performance.now() < deadline) {
      if (pending.size > 0) {
        const { rows } = await db.query<{ sha256: string; status: string }>(
          `SELECT sha256, status FROM document_extractions WHERE workspace_id = $1 AND sha256 = ANY ($2::text[]) AND status <> 'PENDING'`,
          [workspaceId, [...pending]],
        );
        const now = performance.now();
        for (const r of rows) {
          const o = outcomes.get(r.sha256)!;
          o.doneAt = now;
          o.status = r.status;
          pending.delete(r.sha256);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, WATCH_MS));
    }
  })();
  await clients;
  const uploadsSeconds = (performance.now() - started) / 1000;
  await watch;
  return { outcomes: [...outcomes.values()], started, uploadsSeconds, failedUploads, timedOut: pending.size };
}

async function deleteAll(c: BenchContext, ids: string[]): Promise<number> {
  let next = 0;
  let kept = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < ids.length) {
        const res = await fetch(`${c.server.base}/inbox/documents/${ids[next++]}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${c.token}` },
        });
        await res.arrayBuffer();
        if (res.status !== 200) kept++;
      }
    }),
  );
  return kept;
}

/** The same files read one after the other in this process (the readers alone). */
async function readersAlone(files: Upload[]): Promise<number> {
  for (const f of files.slice(0, 10)) await readFile(f.bytes, f.mime); // warm-up
  const t0 = performance.now();
  for (const f of files) await readFile(f.bytes, f.mime);
  return (files.length * 1000) / (performance.now() - t0);
}

async function inboxRow(
  c: BenchContext,
  scenario: string,
  make: (n: number, run: string) => Promise<Upload[]>,
  n: number,
  target: { perSecond: number; p95Ms?: number },
): Promise<ResultRow> {
  const run = randomBytes(3).toString('hex');
  const warm = await make(20, `${run}w`);
  const files = await make(n, run);
  const db = new pg.Client({ connectionString: c.url });
  await db.connect();
  const ws = c.writes.workspaceId;
  const ids: string[] = [];
  try {
    const w = await uploadAndWatch(c, db, warm, ws); // not counted: the server's readers load their modules once
    ids.push(...w.outcomes.map((o) => o.id));
    const dbCpu = () => (c.postgresPid ? cpuSecondsByPid(c.postgresPid) : undefined);
    const server0 = c.server.cpuSeconds();
    const db0 = dbCpu();
    const peak = c.server.watchRss();
    const r = await uploadAndWatch(c, db, files, ws);
    const peakRss = peak();
    const db1 = dbCpu();
    const serverCpuMs = ((c.server.cpuSeconds() - server0) * 1000) / n;
    const dbCpuMs = db0 && db1 ? (cpuSecondsBetween(db0, db1) * 1000) / n : NaN;
    ids.push(...r.outcomes.map((o) => o.id));
    const done = r.outcomes.filter((o) => o.status === 'DONE');
    const lastDone = Math.max(...r.outcomes.map((o) => o.doneAt).filter(Number.isFinite));
    const seconds = (lastDone - r.started) / 1000;
    const lat = summarize(
      r.outcomes.map((o) => (Number.isFinite(o.doneAt) ? o.doneAt - o.startedAt : Infinity)),
      seconds,
    );
    const uploadLat = summarize(
      r.outcomes.map((o) => o.uploadedAt - o.startedAt),
      r.uploadsSeconds,
    );
    const perSecond = n / seconds;
    const base = await readersAlone(files.slice(0, Math.min(files.length, 300)));
    const notOk = n - done.length;
    const met = perSecond >= target.perSecond && (target.p95Ms === undefined || lat.p95 <= target.p95Ms) && notOk === 0;
    return {
      scenario,
      unit: 'docs/s',
      ours: perSecond,
      baseline: base,
      ratio: perSecond / base,
      p50: lat.p50,
      p95: lat.p95,
      p99: lat.p99,
      baselineP95: NaN,
      peakRssMB: peakRss,
      target: `>= ${target.perSecond} docs/s${target.p95Ms ? `, p95 <= ${target.p95Ms} ms` : ''}`,
      met,
      cpuPerRequest: { oursServerMs: serverCpuMs, oursDbMs: dbCpuMs, baseServerMs: NaN, baseDbMs: NaN },
      note: [
        `${n} uploads at ${CLIENTS} clients, upload start → extraction DONE (watched every ${WATCH_MS} ms in the database); ${done.length} DONE`,
        notOk
          ? `${r.failedUploads} uploads failed, ${r.timedOut} never left PENDING, ${n - done.length - r.failedUploads - r.timedOut} NONE/FAILED`
          : '',
        `uploads alone ${uploadLat.perSecond.toFixed(0)}/s (p50 ${uploadLat.p50.toFixed(1)} ms, p95 ${uploadLat.p95.toFixed(1)} ms)`,
        `CPU per document ${serverCpuMs.toFixed(2)} ms server + ${dbCpuMs.toFixed(2)} ms PostgreSQL`,
        'baseline: the same files read one by one in the bench process (readFile alone)',
      ]
        .filter(Boolean)
        .join('; '),
    };
  } finally {
    const kept = await deleteAll(c, ids);
    if (kept) c.log(`    ${kept} inbox documents could not be deleted (attached meanwhile?)`);
    await db.end();
  }
}

export const inboxScenarios = (
  c: BenchContext,
  pdfInvoice: (i: number, number: string) => Promise<Buffer>,
): [string, () => Promise<ResultRow>][] => {
  // the same counts in --quick (they take seconds, not the dataset's size); BENCH_INBOX_EINVOICES and BENCH_INBOX_PDFS override them
  const count = (name: string, n: number) => Number(process.env[name] ?? n);
  return [
    [
      'documents: inbox e-invoices (POST /inbox/documents → DONE)',
      () =>
        inboxRow(
          c,
          'documents: inbox e-invoices, upload → DONE',
          async (n, run) => einvoiceUploads(n, run),
          count('BENCH_INBOX_EINVOICES', 1000),
          EINVOICE_TARGET,
        ),
    ],
    [
      'documents: inbox text PDFs (POST /inbox/documents → DONE)',
      () =>
        inboxRow(
          c,
          'documents: inbox text PDFs, upload → DONE',
          async (n, run) =>
            Promise.all(
              Array.from({ length: n }, async (_, i) => upload(await pdfInvoice(i, `${run}-${i}`), `invoice-${i}.pdf`, 'application/pdf')),
            ),
          count('BENCH_INBOX_PDFS', 300),
          PDF_TARGET,
        ),
    ],
  ];
};
