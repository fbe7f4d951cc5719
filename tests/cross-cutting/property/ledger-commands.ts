/**
 * Model-based test of the ledger: fast-check generates sequences of create / edit / status /
 * void / refund / reimburse / correct / tag create / tag delete / PUT tags / period close /
 * reopen / bank match / unmatch / push / pull / workspace base-currency change; each command asks the model (ledger-model.ts, written from the contract alone) what
 * must happen, sends the request over real HTTP, and compares the answer (status and error
 * code, or the written object) and every entry of the run's workspace with the model. At the
 * end of each run the whole state is compared: every entry's related links, audit-event count
 * and hash chain, the tags (archived or not) and which entries carry them, the periods, and in
 * the database itself every entry's status, amount and links — and the caps invariant,
 * recomputed by an SQL query of its own over `entry_links` — and every closed period's normalised
 * totals, in value and in the currency they are stated in.
 * Used by tests/cross-cutting/property/ledger.test.ts (brief under npm test, long under npm run test:hard).
 */
import fc from 'fast-check';
import { QueryTypes } from 'sequelize';
import { expect } from 'vitest';
import { db } from '../../../server/db/database.js';
import { buildParty, buildWorkspace, camt053 } from '../../support/factories/index.js';
import { expectErrorBody, type Api, type ApiResponse } from '../../support/http.js';
import { runtime } from '../../../server/runtime.js';
import { startGenericProvider, type GenericProvider } from '../../emulators/generic-provider.js';
import * as L from './ledger-model.js';

/** Four closed-able months; May 2025 lies in no period. */
export const PERIODS = [
  { start: '2025-01-01', end: '2025-01-31' },
  { start: '2025-02-01', end: '2025-02-28' },
  { start: '2025-03-01', end: '2025-03-31' },
  { start: '2025-04-01', end: '2025-04-30' },
];
const FIRST_DAY = Date.UTC(2025, 0, 1);
const LAST_OFFSET = 150; // 2025-05-31
const BOUNDS = [
  '2025-01-01',
  '2025-01-31',
  '2025-02-01',
  '2025-02-28',
  '2025-03-01',
  '2025-03-31',
  '2025-04-01',
  '2025-04-30',
  '2025-05-01',
];
/** A small pool, so that names collide (409) and come free again after a delete. */
const TAG_NAMES = ['Travel', 'Office', 'Client', 'Q1'];

export type Stats = {
  runs: number;
  commands: number;
  accepted: number;
  refused: number;
  byCommand: Record<string, { accepted: number; refused: number }>;
  byRule: Record<string, number>;
  /** accepted commands that took a notable path of the rules */
  paths: Record<string, number>;
  /** where the contract allows more than one answer: which one the service gave */
  open: Record<string, number>;
  requests: number;
};
export const newStats = (): Stats => ({
  runs: 0,
  commands: 0,
  accepted: 0,
  refused: 0,
  byCommand: {},
  byRule: {},
  paths: {},
  open: {},
  requests: 0,
});

export type Real = {
  api: Api;
  token: string;
  workspaceId: number;
  projectId: number;
  /** party ids by model slot */
  parties: number[];
  periodIds: string[];
  /** entry ids by model index */
  ids: number[];
  /** tag ids by model index */
  tagIds: number[];
  /** the run's bank account in the base currency (CONTRACT §14; made by the first match), its line ids and match ids by model index */
  accountId: string;
  lineIds: number[];
  matchIds: string[];
  /** the run's connection to the generic provider (CONTRACT §9) and each entry's external id once pushed */
  connectionId: string;
  externalIds: (string | undefined)[];
  stats: Stats;
};

/** The generic accounting provider the runs sync with (a local emulator), started once per process. */
let provider: GenericProvider | undefined;
const PROVIDER_TOKEN = 'ledger-property-provider-token';
async function genericProvider(): Promise<GenericProvider> {
  if (!provider) {
    provider = await startGenericProvider({ token: PROVIDER_TOKEN });
    runtime().config.ACCOUNTING_ALLOW_PRIVATE_HOSTS = true;
    runtime().config.ACCOUNTING_PROVIDER_RETRY_BASE_MS = 5;
  }
  return provider;
}

// --------------------------------------------------------------------------------------------
// Arbitraries
// --------------------------------------------------------------------------------------------

const dateArb = fc.oneof(
  fc.constantFrom(...BOUNDS),
  fc.integer({ min: 0, max: LAST_OFFSET }).map((d) => new Date(FIRST_DAY + d * 86_400_000).toISOString().slice(0, 10)),
);
const typeArb = fc.constantFrom<L.EntryType>('INCOME', 'EXPENSE');
const descriptionArb = fc.constantFrom('Office chairs', 'Hosting', 'Travel', 'Consulting');
const partyArb = fc.integer({ min: 0, max: 2 });
/**
 * Which entry a command acts on: any entry, one that is not VOIDED (else most commands would
 * meet voided entries), a refund or reimbursement (or the replacement of one), an entry others
 * are derived from, a REJECTED one (the comeback to PENDING), or a corrected chain's head.
 * Resolved against the model (falling back to any entry).
 */
type Among = 'any' | 'live' | 'counted' | 'original' | 'rejected' | 'replacement' | 'matchable' | 'matched';
type Pick = { among: Among; n: number };
const pickArb: fc.Arbitrary<Pick> = fc.record({
  among: fc.constantFrom<Among>('any', 'live', 'live', 'counted', 'counted', 'original', 'rejected', 'replacement', 'matched'),
  n: fc.nat({ max: 1_000 }),
});
const withReasonArb = fc.oneof({ arbitrary: fc.constant(true), weight: 4 }, { arbitrary: fc.constant(false), weight: 1 });
/** Tags named by a create or a PUT: up to three picks among the run's tags (archived ones included). */
const tagPicksArb = fc.array(fc.nat({ max: 1_000 }), { maxLength: 3 });

/** Amounts relative to what the model has left, so that exact, partial and over-the-top amounts all occur. */
type AmountSpec =
  | { kind: 'all' } // exactly what remains (a full refund / reimbursement)
  | { kind: 'over' } // one cent more than what remains
  | { kind: 'part'; permille: number }
  | { kind: 'abs'; value: number };
const amountSpecArb: fc.Arbitrary<AmountSpec> = fc.oneof(
  fc.constant({ kind: 'all' as const }),
  fc.constant({ kind: 'over' as const }),
  fc.integer({ min: 1, max: 999 }).map((permille) => ({ kind: 'part' as const, permille })),
  fc.integer({ min: 1, max: 20_000 }).map((value) => ({ kind: 'abs' as const, value })),
);
function resolveAmount(spec: AmountSpec, left: number): number {
  if (spec.kind === 'abs') return spec.value;
  if (spec.kind === 'all') return Math.max(1, left);
  if (spec.kind === 'over') return Math.max(1, left + 1);
  return Math.max(1, Math.floor((left * spec.permille) / 1000));
}
/**
 * New amounts of an existing entry (edit, correction), on both sides of each bound: what its
 * refunds plus reimbursements use (an original's lower bound), each kind alone, and — for a
 * refund or reimbursement — what its original's chain has left (its upper bound).
 */
type NewAmountSpec = { kind: 'used' | 'belowUsed' | 'belowKind' | 'room' | 'overRoom' } | { kind: 'abs'; value: number };
const newAmountArb: fc.Arbitrary<NewAmountSpec> = fc.oneof(
  fc.constantFrom<NewAmountSpec>({ kind: 'used' }, { kind: 'belowUsed' }, { kind: 'belowKind' }, { kind: 'room' }, { kind: 'overRoom' }),
  fc.integer({ min: 1, max: 20_000 }).map((value) => ({ kind: 'abs' as const, value })),
);

/** The cap entry `i` counts in, if it is a refund or reimbursement or the replacement of one. */
function countsIn(m: L.Model, i: number): { original: number; type: L.CapType } | undefined {
  for (const x of L.correctionChain(m, i)) {
    const link = L.amountLinkOf(m, x);
    if (link) return { original: link.original, type: link.type as L.CapType };
  }
  return undefined;
}
function resolveNewAmount(m: L.Model, i: number, spec: NewAmountSpec): number {
  const e = m.entries[i];
  const refunds = L.capUse(m, i, 'REFUND');
  const reimbursements = L.capUse(m, i, 'REIMBURSEMENT');
  const cap = countsIn(m, i);
  const room = cap ? e.amount + L.capRoom(m, cap.original, cap.type) : e.amount;
  switch (spec.kind) {
    case 'abs':
      return spec.value;
    case 'used':
      return Math.max(1, refunds + reimbursements);
    case 'belowUsed':
      return Math.max(1, refunds + reimbursements - 1);
    case 'belowKind':
      return Math.max(1, Math.max(refunds, reimbursements) - 1);
    case 'room':
      return Math.max(1, room);
    case 'overRoom':
      return Math.max(1, room + 1);
  }
}

// --------------------------------------------------------------------------------------------
// Comparing the service with the model
// --------------------------------------------------------------------------------------------

async function call(r: Real, method: string, path: string, body?: unknown): Promise<ApiResponse> {
  r.stats.requests += 1;
  return r.api.request(method, path, { token: r.token, body });
}

function viewOf(r: Real, e: L.ModelEntry) {
  return {
    entryType: e.type,
    entryStatus: e.status,
    statusReason: e.statusReason,
    amountCents: e.amount,
    entryDate: e.date,
    description: e.description,
    fromPartyId: r.parties[e.from],
    toPartyId: r.parties[e.to],
    // §14: an entry in a match is reconciled; nothing else in these runs reconciles
    isReconciled: e.match !== null,
  };
}
const pickView = (x: Record<string, unknown>) => ({
  isReconciled: x.isReconciled,
  entryType: x.entryType,
  entryStatus: x.entryStatus,
  statusReason: x.statusReason,
  amountCents: x.amountCents,
  entryDate: x.entryDate,
  description: x.description,
  fromPartyId: x.fromPartyId,
  toPartyId: x.toPartyId,
});

/** Every entry of the run's workspace (one list call): ids, statuses, amounts, dates, parties. */
async function compareEntries(m: L.Model, r: Real): Promise<void> {
  const res = await call(r, 'GET', `/entries?workspaceId=${r.workspaceId}&limit=100&sortBy=createdAt&sortOrder=ASC`);
  expect(res.status, res.text).toBe(200);
  expect(res.body.total, 'entries in the workspace').toBe(m.entries.length);
  const byId = new Map<number, Record<string, unknown>>(res.body.items.map((x: { id: number }) => [x.id, x]));
  const actual = r.ids.map((id) => (byId.has(id) ? pickView(byId.get(id)!) : 'missing'));
  expect(actual).toEqual(m.entries.map((e) => viewOf(r, e)));
}

/** `GET /related`, the audit-event count (with a valid hash chain) and the tags of one entry. */
async function compareEntryDeep(m: L.Model, r: Real, i: number): Promise<void> {
  const rel = await call(r, 'GET', `/entries/${r.ids[i]}/related`);
  expect(rel.status, rel.text).toBe(200);
  const actual = (rel.body as { linkType: string; role: string; entry: Record<string, unknown> }[])
    .map((x) => ({ linkType: x.linkType, role: x.role, id: x.entry.id, ...pickView(x.entry) }))
    .sort((a, b) => (a.id as number) - (b.id as number));
  const expected = L.relatedOf(m, i).map((x) => ({ linkType: x.type, role: x.role, id: r.ids[x.entry], ...viewOf(r, m.entries[x.entry]) }));
  expect(actual, `related of #${i}`).toEqual(expected);
  const verify = await call(r, 'GET', `/entries/${r.ids[i]}/events/verify`);
  expect(verify.status, verify.text).toBe(200);
  // §9's table says which record states a push, an edit and a pull lead to, not which SYNC_* events each records:
  // those are left out of the count (the chain, with them, must still verify)
  const listed = await call(r, 'GET', `/entries/${r.ids[i]}/events`);
  const syncEvents = (listed.body as { kind: string }[]).filter((e) => e.kind.startsWith('SYNC_')).length;
  expect({ ...verify.body, count: verify.body.count - syncEvents }, `events of #${i}`).toEqual({
    valid: true,
    count: m.entries[i].events,
    firstBrokenEventId: null,
  });
  expect(await tagsOf(r, i), `tags of #${i} (detail)`).toEqual(m.entries[i].tags);
}

/** The tags an entry carries, as model tag indices (from its detail, `GET /entries/{id}`). */
async function tagsOf(r: Real, i: number): Promise<number[]> {
  const res = await call(r, 'GET', `/entries/${r.ids[i]}`);
  expect(res.status, res.text).toBe(200);
  return (res.body.tags as { id: number }[]).map((t) => r.tagIds.indexOf(t.id)).sort((a, b) => a - b);
}

async function comparePeriods(m: L.Model, r: Real): Promise<void> {
  const res = await call(r, 'GET', `/accounting/periods?workspaceId=${r.workspaceId}`);
  expect(res.status, res.text).toBe(200);
  const status = new Map<string, string>(res.body.map((p: { id: string; status: string }) => [p.id, p.status]));
  expect(r.periodIds.map((id) => status.get(id))).toEqual(m.periods.map((p) => (p.closed ? 'CLOSED' : 'OPEN')));
}

async function compareTags(m: L.Model, r: Real): Promise<void> {
  const all = await call(r, 'GET', `/tags?workspaceId=${r.workspaceId}&includeArchived=true`);
  const usable = await call(r, 'GET', `/tags?workspaceId=${r.workspaceId}`);
  expect(all.status, all.text).toBe(200);
  expect(usable.status, usable.text).toBe(200);
  const byId = new Map<number, { name: string; archivedAt: string | null }>(all.body.map((t: { id: number }) => [t.id, t]));
  expect(r.tagIds.map((id) => ({ name: byId.get(id)?.name, archived: byId.get(id)?.archivedAt != null }))).toEqual(m.tags);
  const listed = (usable.body as { id: number }[]).map((t) => r.tagIds.indexOf(t.id)).sort((a, b) => a - b);
  expect(listed, 'GET /tags lists the usable tags').toEqual(m.tags.flatMap((t, k) => (t.archived ? [] : [k])));
}

/**
 * The CONTRACT §5 invariant recomputed in SQL from the stored rows (not by the service's own
 * functions): for every entry that has not been corrected (a chain head), the live refunds
 * linked to it or to the entries it replaced (walked back through CORRECTION links), each
 * followed forward through its own corrections, and the same for reimbursements.
 */
const CAPS_SQL = `
  WITH RECURSIVE
  heads AS (
    SELECT e.id, e.amount_cents FROM entries e
     WHERE e.workspace_id = :ws
       AND NOT EXISTS (SELECT 1 FROM entry_links c WHERE c.original_entry_id = e.id AND c.link_type = 'CORRECTION')
  ),
  members(head, id) AS (
    SELECT id, id FROM heads
    UNION
    SELECT m.head, c.original_entry_id FROM members m JOIN entry_links c ON c.derived_entry_id = m.id AND c.link_type = 'CORRECTION'
  ),
  counted(head, kind, id) AS (
    SELECT m.head, l.link_type, l.derived_entry_id
      FROM members m JOIN entry_links l ON l.original_entry_id = m.id AND l.link_type IN ('REFUND', 'REIMBURSEMENT')
    UNION
    SELECT k.head, k.kind, c.derived_entry_id FROM counted k JOIN entry_links c ON c.original_entry_id = k.id AND c.link_type = 'CORRECTION'
  )
  SELECT h.id AS head, kinds.kind, h.amount_cents AS amount,
         COALESCE(SUM(d.amount_cents) FILTER (WHERE d.entry_status NOT IN ('VOIDED', 'CANCELLED', 'REJECTED')), 0) AS live
    FROM heads h
   CROSS JOIN (VALUES ('REFUND'), ('REIMBURSEMENT')) AS kinds(kind)
    LEFT JOIN counted k ON k.head = h.id AND k.kind = kinds.kind
    LEFT JOIN entries d ON d.id = k.id
   GROUP BY h.id, kinds.kind, h.amount_cents`;

/** The database itself against the model: statuses, amounts, links, tags, and the invariant. */
async function compareDatabase(m: L.Model, r: Real): Promise<void> {
  const q = <T extends object>(sql: string) => db().query<T>(sql, { replacements: { ws: r.workspaceId }, type: QueryTypes.SELECT });
  const index = (id: unknown) => r.ids.indexOf(Number(id));
  const rows = await q<{ id: string; entry_status: string; amount_cents: string }>(
    'SELECT id, entry_status, amount_cents FROM entries WHERE workspace_id = :ws ORDER BY id',
  );
  const stored = new Map(rows.map((x) => [index(x.id), { status: x.entry_status, amount: Number(x.amount_cents) }]));
  expect(stored.size, 'entries stored').toBe(m.entries.length);
  expect(
    m.entries.map((_, i) => stored.get(i) ?? 'missing'),
    'stored status and amount',
  ).toEqual(m.entries.map((e) => ({ status: e.status, amount: e.amount })));
  const links = await q<{ link_type: string; original_entry_id: string; derived_entry_id: string }>(
    'SELECT link_type, original_entry_id, derived_entry_id FROM entry_links WHERE workspace_id = :ws',
  );
  const asText = (l: L.ModelLink) => `${l.type} ${l.original}→${l.derived}`;
  expect(
    links
      .map((l) => asText({ type: l.link_type as L.LinkType, original: index(l.original_entry_id), derived: index(l.derived_entry_id) }))
      .sort(),
    'stored links',
  ).toEqual(m.links.map(asText).sort());
  const carried = await q<{ entry_id: string; tag_id: number }>('SELECT entry_id, tag_id FROM entry_tags WHERE workspace_id = :ws');
  expect(carried.map((x) => `${index(x.entry_id)}:${r.tagIds.indexOf(Number(x.tag_id))}`).sort(), 'stored entry tags').toEqual(
    m.entries.flatMap((e, i) => e.tags.map((t) => `${i}:${t}`)).sort(),
  );
  // §14: the lines as the model has them, and every stored match balanced with live entries only (SQL of its own)
  const storedLines = await q<{ id: string; status: string; match_id: string | null }>(
    'SELECT id, status, match_id FROM bank_lines WHERE workspace_id = :ws ORDER BY id',
  );
  expect(
    storedLines.map((l) => `${r.lineIds.indexOf(Number(l.id))}:${l.status}:${l.match_id === null ? '-' : r.matchIds.indexOf(l.match_id)}`),
    'stored bank lines',
  ).toEqual(m.lines.map((l, k) => `${k}:${l.match === null ? 'UNMATCHED' : 'MATCHED'}:${l.match === null ? '-' : l.match}`));
  const unbalanced = await q<{ id: string }>(
    `SELECT bm.id FROM bank_matches bm WHERE bm.workspace_id = :ws AND (
       (SELECT COALESCE(sum(l.amount_cents), 0) FROM bank_lines l WHERE l.match_id = bm.id)
       <> (SELECT COALESCE(sum(CASE WHEN e.entry_type = 'INCOME' THEN e.amount_cents ELSE -e.amount_cents END), 0)
             FROM bank_match_entries me JOIN entries e ON e.id = me.entry_id WHERE me.match_id = bm.id)
       OR EXISTS (SELECT 1 FROM bank_match_entries me JOIN entries e ON e.id = me.entry_id
                   WHERE me.match_id = bm.id AND e.entry_status IN ('VOIDED', 'CANCELLED', 'REJECTED')))`,
  );
  expect(unbalanced, 'CONTRACT §14: every match balances, with live entries only (SQL over the stored rows)').toEqual([]);
  const caps = await q<{ head: string; kind: L.CapType; amount: string; live: string }>(CAPS_SQL);
  const broken = caps.filter((c) => Number(c.live) > Number(c.amount));
  expect(broken, 'CONTRACT §5 invariant (SQL over entry_links)').toEqual([]);
  // and the model's own totals are those the rows give
  expect(caps.map((c) => `#${index(c.head)} ${c.kind} ${c.live}`).sort(), 'cap totals: SQL over the stored rows vs the model').toEqual(
    m.entries
      .flatMap((_, i) =>
        m.links.some((l) => l.type === 'CORRECTION' && l.original === i)
          ? []
          : (['REFUND', 'REIMBURSEMENT'] as const).map((kind) => `#${i} ${kind} ${L.capUse(m, i, kind)}`),
      )
      .sort(),
  );
}

/** CONTRACT §11: the statuses the reports (and so the books, §23) count. */
const BOOKED: readonly string[] = ['PENDING', 'UNDER_REVIEW', 'COMPLETED'];

/**
 * CONTRACT §23 against the model, from the contract's words: an entry is in the books while the reports count it
 * (INCOME: RECEIVABLE debit, REVENUE credit; EXPENSE: EXPENSE debit, PAYABLE credit; the run's entries carry no
 * category and are in the base currency), a matched one is settled (its open item moves to the bank account's ledger
 * account, BANK). So the trial balance as of the end of time holds these balances per role account, its totals are
 * equal, the P&L of the model's whole range equals the summary's totals, and verify finds nothing.
 */
export async function compareBooks(m: L.Model, r: Real): Promise<void> {
  const roles = await call(r, 'GET', `/ledger/roles?workspaceId=${r.workspaceId}`);
  expect(roles.status, roles.text).toBe(200);
  const code = (role: string) => roles.body[role].code as string;
  const booked = m.entries.filter((e) => BOOKED.includes(e.status));
  const sum = (list: L.ModelEntry[]) => list.reduce((s, e) => s + e.amount, 0);
  const income = booked.filter((e) => e.type === 'INCOME');
  const expense = booked.filter((e) => e.type === 'EXPENSE');
  const settled = (list: L.ModelEntry[]) => sum(list.filter((e) => e.match !== null));
  const expected = Object.fromEntries(
    [
      [code('RECEIVABLE'), sum(income) - settled(income)],
      [code('PAYABLE'), -(sum(expense) - settled(expense))],
      [code('REVENUE'), -sum(income)],
      [code('EXPENSE'), sum(expense)],
      [code('BANK'), settled(income) - settled(expense)],
    ].filter(([, balance]) => balance !== 0),
  );
  const tb = await call(r, 'GET', `/ledger/trial-balance?workspaceId=${r.workspaceId}&asOf=2099-12-31`);
  expect(tb.status, tb.text).toBe(200);
  expect(tb.body.totals.debitCents, 'CONTRACT §23: trial balance totals equal').toBe(tb.body.totals.creditCents);
  const balances = Object.fromEntries(
    (tb.body.accounts as { code: string; balanceCents: number }[]).filter((a) => a.balanceCents !== 0).map((a) => [a.code, a.balanceCents]),
  );
  expect(balances, 'CONTRACT §23: the balance of each account').toEqual(expected);
  const pl = await call(r, 'GET', `/reports/profit-and-loss?workspaceId=${r.workspaceId}&from=2000-01-01&to=2099-12-31`);
  expect(pl.status, pl.text).toBe(200);
  const summary = await call(r, 'GET', `/reports/summary?workspaceId=${r.workspaceId}&normalize=true`);
  expect(summary.status, summary.text).toBe(200);
  expect([pl.body.totalRevenueCents, pl.body.totalExpenseCents], 'CONTRACT §23: P&L of the range = the summary').toEqual([
    sum(income),
    sum(expense),
  ]);
  expect([summary.body.totalIncomeCents, summary.body.totalExpenseCents], 'the summary counts the model’s entries').toEqual([
    sum(income),
    sum(expense),
  ]);
  const verify = await call(r, 'GET', `/ledger/verify?workspaceId=${r.workspaceId}`);
  expect(verify.status, verify.text).toBe(200);
  expect(verify.body.mismatches, 'GET /ledger/verify').toEqual([]);
  expect(verify.body.ok).toBe(true);
}

/** The whole state at the end of a run. */
export async function compareEverything(m: L.Model, r: Real): Promise<void> {
  await compareEntries(m, r);
  for (let i = 0; i < m.entries.length; i++) await compareEntryDeep(m, r, i);
  await compareTags(m, r);
  await comparePeriods(m, r);
  await compareClosedTotals(m, r);
  await compareDatabase(m, r);
}

/** §7/§17: every closed period's normalised summary — income, expense AND the currency they are stated in — against the model. */
async function compareClosedTotals(m: L.Model, r: Real): Promise<void> {
  for (const t of L.closedTotals(m)) {
    const p = m.periods[t.period];
    const res = await call(r, 'GET', `/reports/summary?workspaceId=${r.workspaceId}&from=${p.start}&to=${p.end}&normalize=true`);
    expect(res.status, res.text).toBe(200);
    expect(
      { income: res.body.totalIncomeCents, expense: res.body.totalExpenseCents, currency: res.body.currency },
      `closed period ${p.start.slice(0, 7)}: totals and their currency`,
    ).toEqual({ income: t.income, expense: t.expense, currency: t.currency });
  }
}

/**
 * The answer itself against the model's decision: the exact refusal, or a 200/201 (the written
 * object is compared by the caller). For a `Choice`, the option the service took. Returns the
 * refusal that applies (null: accepted, apply the command to the model).
 */
function expectOutcome(r: Real, name: string, res: ApiResponse, decision: L.Decision): L.Refusal | null {
  const tally = (r.stats.byCommand[name] ??= { accepted: 0, refused: 0 });
  r.stats.commands += 1;
  let refusal: L.Refusal | null;
  if (L.isChoice(decision)) {
    const ok = res.status === 200 || res.status === 201;
    const taken = decision.choices.find((c) => (c === null ? ok : c.status === res.status));
    if (taken === undefined) {
      const allowed = decision.choices.map((c) => (c ? `${c.status} (${c.rule})` : '200')).join(' or ');
      throw new Error(`model allows ${allowed} [${decision.why}], service answered ${res.status} ${res.text}`);
    }
    refusal = taken;
    const key = `${decision.why} → ${taken ? taken.status : 200}`;
    r.stats.open[key] = (r.stats.open[key] ?? 0) + 1;
  } else {
    refusal = decision;
  }
  if (refusal) {
    if (res.status !== refusal.status)
      throw new Error(`model refuses (${refusal.rule}: ${refusal.status}), service answered ${res.status} ${res.text}`);
    expectErrorBody(res, refusal.status, refusal.code);
    r.stats.refused += 1;
    tally.refused += 1;
    r.stats.byRule[refusal.rule] = (r.stats.byRule[refusal.rule] ?? 0) + 1;
    return refusal;
  }
  if (res.status !== 200 && res.status !== 201) throw new Error(`model accepts, service answered ${res.status} ${res.text}`);
  r.stats.accepted += 1;
  tally.accepted += 1;
  return null;
}

// --------------------------------------------------------------------------------------------
// Commands
// --------------------------------------------------------------------------------------------

type Step = (m: L.Model, r: Real, note: (s: string) => void) => Promise<void>;

class LedgerCommand implements fc.AsyncCommand<L.Model, Real> {
  private resolved = '';
  constructor(
    private readonly label: string,
    private readonly needs: (m: Readonly<L.Model>) => boolean,
    private readonly step: Step,
  ) {}
  check(m: Readonly<L.Model>): boolean {
    return this.needs(m);
  }
  async run(m: L.Model, r: Real): Promise<void> {
    this.resolved = '';
    await this.step(m, r, (s) => (this.resolved = s));
    // every accepted command must leave the model inside the rule it is written from
    expect(L.capsBroken(m), 'the model itself keeps the caps').toBeNull();
    expect(L.matchesBroken(m), 'the model itself keeps every match balanced').toBeNull();
    await compareEntries(m, r);
    await compareBooks(m, r);
  }
  toString(): string {
    return `${this.label}${this.resolved ? ` {${this.resolved}}` : ''}`;
  }
}
const always = () => true;
const hasEntries = (m: Readonly<L.Model>) => m.entries.length > 0;
const hasTags = (m: Readonly<L.Model>) => m.tags.length > 0;

let reasons = 0;
const nextReason = () => `reason-${++reasons}`;
function entryAt(m: L.Model, pick: Pick): number {
  const all = m.entries.map((_, i) => i);
  const is: Record<Among, (i: number) => boolean> = {
    any: () => true,
    live: (i) => m.entries[i].status !== 'VOIDED',
    counted: (i) => countsIn(m, i) !== undefined && m.entries[i].status !== 'VOIDED',
    original: (i) => m.links.some((l) => l.original === i && l.type !== 'CORRECTION'),
    rejected: (i) => m.entries[i].status === 'REJECTED',
    replacement: (i) => m.links.some((l) => l.derived === i && l.type === 'CORRECTION'),
    matchable: (i) => ['PENDING', 'UNDER_REVIEW', 'COMPLETED'].includes(m.entries[i].status) && m.entries[i].match === null,
    matched: (i) => m.entries[i].match !== null,
  };
  const candidates = all.filter(is[pick.among]);
  const from = candidates.length > 0 ? candidates : all;
  return from[pick.n % from.length];
}
const tagsAt = (m: L.Model, picks: number[]) => (m.tags.length === 0 ? [] : [...new Set(picks.map((n) => n % m.tags.length))]);
const showPick = (p: Pick) => `${p.among}:${p.n}`;
function tallyPath(r: Real, path: string): void {
  r.stats.paths[path] = (r.stats.paths[path] ?? 0) + 1;
}

const createCmd = fc
  .record({
    type: typeArb,
    amount: fc.integer({ min: 1, max: 20_000 }),
    date: dateArb,
    description: descriptionArb,
    from: partyArb,
    to: partyArb,
    tags: fc.oneof(fc.constant<number[]>([]), tagPicksArb),
  })
  .map(
    (c) =>
      new LedgerCommand(`create(${c.type} ${c.amount} ${c.date} tags=${JSON.stringify(c.tags)})`, always, async (m, r, note) => {
        const input: L.CreateInput = { ...c, tags: tagsAt(m, c.tags) };
        note(`tags #${input.tags.join(',#')}`);
        const res = await call(r, 'POST', '/entries', {
          projectId: r.projectId,
          entryType: c.type,
          amountCents: c.amount,
          baseCurrency: m.base,
          entryDate: c.date,
          description: c.description,
          fromPartyId: r.parties[c.from],
          toPartyId: r.parties[c.to],
          ...(input.tags.length > 0 ? { tagIds: input.tags.map((t) => r.tagIds[t]) } : {}),
        });
        if (expectOutcome(r, 'create', res, L.decideCreate(m, input))) return;
        if (input.tags.length > 0) tallyPath(r, 'create: with tags');
        const i = L.applyCreate(m, input);
        r.ids.push(res.body.id);
        expect(pickView(res.body)).toEqual(viewOf(r, m.entries[i]));
      }),
  );

const editCmd = fc
  .record({
    pick: pickArb,
    amount: fc.option(newAmountArb, { nil: undefined }),
    date: fc.option(dateArb, { nil: undefined }),
    description: fc.option(descriptionArb, { nil: undefined }),
  })
  .map(
    (c) =>
      new LedgerCommand(
        `edit(${showPick(c.pick)} ${JSON.stringify({ amount: c.amount, date: c.date, description: c.description })})`,
        hasEntries,
        async (m, r, note) => {
          const i = entryAt(m, c.pick);
          const amount = c.amount === undefined ? undefined : resolveNewAmount(m, i, c.amount);
          const input: L.EditInput = { amount, date: c.date, description: c.description };
          note(`#${i} ${m.entries[i].status} ${m.entries[i].amount} → amount=${amount}`);
          const res = await call(r, 'PATCH', `/entries/${r.ids[i]}`, {
            ...(amount !== undefined ? { amountCents: amount } : {}),
            ...(c.date !== undefined ? { entryDate: c.date } : {}),
            ...(c.description !== undefined ? { description: c.description } : {}),
          });
          if (!expectOutcome(r, 'edit', res, L.decideEdit(m, i, input))) {
            if (amount !== undefined && amount !== m.entries[i].amount) {
              if (countsIn(m, i)) tallyPath(r, 'edit: amount of a refund/reimbursement (or its replacement)');
              if (L.capMembers(m, i, 'REFUND').length + L.capMembers(m, i, 'REIMBURSEMENT').length > 0)
                tallyPath(r, 'edit: amount of an entry with refunds/reimbursements');
            }
            L.applyEdit(m, i, input);
            expect(pickView(res.body)).toEqual(viewOf(r, m.entries[i]));
          }
        },
      ),
  );

function statusOf(pick: Pick, to: L.Status, withReason: boolean): LedgerCommand {
  return new LedgerCommand(`status(${showPick(pick)} → ${to}${withReason ? '' : ', no reason'})`, hasEntries, async (m, r, note) => {
    const i = entryAt(m, pick);
    const reason = withReason ? nextReason() : undefined;
    const from = m.entries[i].status;
    note(`#${i} ${from} → ${to}`);
    const res = await call(r, 'PATCH', `/entries/${r.ids[i]}/status`, reason === undefined ? { status: to } : { status: to, reason });
    if (!expectOutcome(r, 'status', res, L.decideStatus(m, i, to, reason))) {
      if (from === 'REJECTED' && to === 'PENDING' && countsIn(m, i)) tallyPath(r, 'status: a REJECTED refund/reimbursement comes back');
      L.applyStatus(m, i, to, reason);
      expect(pickView(res.body)).toEqual(viewOf(r, m.entries[i]));
    }
  });
}
const statusCmd = fc
  .record({ pick: pickArb, to: fc.constantFrom(...L.STATUSES), withReason: withReasonArb })
  .map((c) => statusOf(c.pick, c.to, c.withReason));

/**
 * The comeback of the invariant (§5: a REJECTED refund no longer counts; back to PENDING it
 * counts again, and 409 when it would not fit): reject a refund or reimbursement, later bring a
 * REJECTED one back. Plain status commands, aimed.
 */
const rejectCountedCmd = fc.nat({ max: 1_000 }).map((n) => statusOf({ among: 'counted', n }, 'REJECTED', true));
const comebackCmd = fc.nat({ max: 1_000 }).map((n) => statusOf({ among: 'rejected', n }, 'PENDING', false));

const voidCmd = pickArb.map(
  (pick) =>
    new LedgerCommand(`void(${showPick(pick)})`, hasEntries, async (m, r, note) => {
      const i = entryAt(m, pick);
      const reason = nextReason();
      note(`#${i} ${m.entries[i].status}`);
      const res = await call(r, 'POST', `/entries/${r.ids[i]}/void`, { reason });
      if (!expectOutcome(r, 'void', res, L.decideVoid(m, i))) {
        L.applyVoid(m, i, reason);
        expect(pickView(res.body)).toEqual(viewOf(r, m.entries[i]));
      }
    }),
);

/**
 * The tags of a new refund, reimbursement or replacement: the contract names none, so the
 * service may give it none or its original's; anything else is a failure. Returns what it gave.
 */
async function newEntryTags(m: L.Model, r: Real, original: number, newId: number): Promise<number[]> {
  r.ids.push(newId);
  const tags = await tagsOf(r, r.ids.length - 1);
  r.ids.pop();
  expect(
    [[], m.entries[original].tags].map((x) => x.join()),
    `tags of the new entry ${newId}`,
  ).toContain(tags.join());
  return tags;
}

/** After a refund, reimbursement or correction was accepted: the new entry's answer. */
function afterDerive(m: L.Model, r: Real, res: ApiResponse, derived: number): void {
  r.ids.push(res.body.id);
  expect(pickView(res.body), 'the new entry').toEqual(viewOf(r, m.entries[derived]));
}

const refundCmd = fc.record({ pick: pickArb, amount: amountSpecArb, date: dateArb }).map(
  (c) =>
    new LedgerCommand(`refund(${showPick(c.pick)} ${JSON.stringify(c.amount)} ${c.date})`, hasEntries, async (m, r, note) => {
      const i = entryAt(m, c.pick);
      const left = m.entries[i].status === 'VOIDED' ? 0 : L.capRoom(m, i, 'REFUND');
      const input: L.DeriveInput = { amount: resolveAmount(c.amount, left), date: c.date, description: 'Refund' };
      note(`#${i} ${m.entries[i].status} amount=${input.amount} of ${left} left`);
      const res = await call(r, 'POST', `/entries/${r.ids[i]}/refund`, {
        amountCents: input.amount,
        entryDate: input.date,
        description: input.description,
      });
      if (expectOutcome(r, 'refund', res, L.decideRefund(m, i, input))) return;
      if (L.capMembers(m, i, 'REFUND').some((d) => L.correctionChain(m, d).length > 1) || L.correctionChain(m, i).length > 1)
        tallyPath(r, 'refund: in a chain with corrections');
      const derived = L.applyRefund(m, i, input, await newEntryTags(m, r, i, res.body.id));
      if (L.capRoom(m, i, 'REFUND') === 0) {
        tallyPath(
          r,
          m.entries[i].statusReason === 'Fully refunded'
            ? 'refund: full, original voided'
            : 'refund: full, original in a closed period kept',
        );
      }
      afterDerive(m, r, res, derived);
    }),
);

const reimburseCmd = fc
  .record({
    pick: pickArb,
    amount: amountSpecArb,
    date: dateArb,
    entryType: fc.option(typeArb, { nil: undefined }),
    from: partyArb,
    to: partyArb,
  })
  .map(
    (c) =>
      new LedgerCommand(
        `reimburse(${showPick(c.pick)} ${JSON.stringify(c.amount)} ${c.date} ${c.entryType ?? '-'})`,
        hasEntries,
        async (m, r, note) => {
          const i = entryAt(m, c.pick);
          const left = m.entries[i].status === 'VOIDED' ? 0 : L.capRoom(m, i, 'REIMBURSEMENT');
          const input: L.ReimburseInput = {
            amount: resolveAmount(c.amount, left),
            date: c.date,
            description: 'Reimbursement',
            entryType: c.entryType,
            from: c.from,
            to: c.to,
          };
          note(`#${i} ${m.entries[i].type} ${m.entries[i].status} amount=${input.amount} of ${left} left`);
          const res = await call(r, 'POST', `/entries/${r.ids[i]}/reimburse`, {
            amountCents: input.amount,
            entryDate: input.date,
            description: input.description,
            fromPartyId: r.parties[c.from],
            toPartyId: r.parties[c.to],
            ...(c.entryType ? { entryType: c.entryType } : {}),
          });
          if (expectOutcome(r, 'reimburse', res, L.decideReimburse(m, i, input))) return;
          if (input.amount === left) tallyPath(r, 'reimburse: the whole remainder');
          afterDerive(m, r, res, L.applyReimburse(m, i, input, await newEntryTags(m, r, i, res.body.id)));
        },
      ),
  );

const correctCmd = fc
  .record({
    pick: pickArb,
    amount: fc.option(newAmountArb, { nil: undefined }),
    date: fc.option(dateArb, { nil: undefined }),
  })
  .map(
    (c) =>
      new LedgerCommand(
        `correct(${showPick(c.pick)} amount=${JSON.stringify(c.amount ?? '-')} date=${c.date ?? '-'})`,
        hasEntries,
        async (m, r, note) => {
          const i = entryAt(m, c.pick);
          const amount = c.amount === undefined ? undefined : resolveNewAmount(m, i, c.amount);
          const input: L.CorrectInput = { reason: nextReason(), amount, date: c.date };
          note(`#${i} ${m.entries[i].status} ${m.entries[i].amount} → amount=${amount ?? '-'}`);
          const res = await call(r, 'POST', `/entries/${r.ids[i]}/correct`, {
            reason: input.reason,
            ...(amount !== undefined ? { amountCents: amount } : {}),
            ...(c.date !== undefined ? { entryDate: c.date } : {}),
          });
          if (expectOutcome(r, 'correct', res, L.decideCorrect(m, i, input))) return;
          if (countsIn(m, i)) tallyPath(r, 'correct: a refund/reimbursement (takes its place in the total)');
          if (L.capMembers(m, i, 'REFUND').length + L.capMembers(m, i, 'REIMBURSEMENT').length > 0)
            tallyPath(r, 'correct: an original with refunds/reimbursements (they move to the replacement)');
          if (m.entries[i].status === 'REJECTED') tallyPath(r, 'correct: a REJECTED entry (its replacement is live)');
          afterDerive(m, r, res, L.applyCorrect(m, i, input, await newEntryTags(m, r, i, res.body.id)));
        },
      ),
  );

const createTagCmd = fc.constantFrom(...TAG_NAMES).map(
  (name) =>
    new LedgerCommand(`createTag(${name})`, always, async (m, r) => {
      const res = await call(r, 'POST', '/tags', { workspaceId: r.workspaceId, name });
      if (expectOutcome(r, 'createTag', res, L.decideCreateTag(m, name))) return;
      if (m.tags.some((t) => t.archived && t.name === name)) tallyPath(r, "createTag: an archived tag's name, free again");
      L.applyCreateTag(m, name);
      r.tagIds.push(res.body.id);
      expect(res.body).toMatchObject({ name, workspaceId: r.workspaceId });
    }),
);

const deleteTagCmd = fc.nat({ max: 1_000 }).map(
  (n) =>
    new LedgerCommand(`deleteTag(${n})`, hasTags, async (m, r, note) => {
      const t = n % m.tags.length;
      note(`tag #${t}${m.tags[t].archived ? ' (archived)' : ''}`);
      const res = await call(r, 'DELETE', `/tags/${r.tagIds[t]}`);
      if (expectOutcome(r, 'deleteTag', res, L.decideDeleteTag(m, t))) return;
      if (m.entries.some((e) => e.tags.includes(t))) tallyPath(r, 'deleteTag: a tag entries carry');
      L.applyDeleteTag(m, t);
    }),
);

const putTagsCmd = fc.record({ pick: pickArb, tags: tagPicksArb }).map(
  (c) =>
    new LedgerCommand(`putTags(${showPick(c.pick)} ${JSON.stringify(c.tags)})`, hasEntries, async (m, r, note) => {
      const i = entryAt(m, c.pick);
      const tags = tagsAt(m, c.tags);
      note(`#${i} ${m.entries[i].status} [${m.entries[i].tags.join(',')}] → [${tags.join(',')}]`);
      const res = await call(r, 'PUT', `/entries/${r.ids[i]}/tags`, { tagIds: tags.map((t) => r.tagIds[t]) });
      if (expectOutcome(r, 'putTags', res, L.decidePutTags(m, i, tags))) return;
      L.applyPutTags(m, i, tags);
      expect(pickView(res.body)).toEqual(viewOf(r, m.entries[i]));
    }),
);

const periodCmd = (close: boolean) =>
  fc.integer({ min: 0, max: PERIODS.length - 1 }).map(
    (p) =>
      new LedgerCommand(`${close ? 'close' : 'reopen'}(${PERIODS[p].start.slice(0, 7)})`, always, async (m, r) => {
        const res = await call(r, 'PATCH', `/accounting/periods/${r.periodIds[p]}/${close ? 'close' : 'reopen'}`);
        if (!expectOutcome(r, close ? 'close' : 'reopen', res, L.decidePeriod(m, p, close))) {
          L.applyPeriod(m, p, close);
          expect(res.body).toMatchObject({ id: r.periodIds[p], status: close ? 'CLOSED' : 'OPEN' });
        }
      }),
  );

/** The run's bank account, in the workspace's base currency, made the first time a command needs it. */
async function ensureAccount(m: L.Model, r: Real): Promise<void> {
  if (m.hasAccount) return;
  const account = await call(r, 'POST', '/bank-accounts', {
    workspaceId: r.workspaceId,
    name: 'Property account',
    currency: m.base,
    projectId: r.projectId,
    partyId: r.parties[0],
    autoMatch: false,
  });
  expect(account.status, account.text).toBe(200);
  r.accountId = account.body.id;
  m.hasAccount = true;
}

/** A one-line statement of the run's account (its currency, a fresh bank transaction id): the new line's id. */
let lineRefs = 0;
async function importLine(m: L.Model, r: Real, cents: number): Promise<number> {
  await ensureAccount(m, r);
  const amount = `${cents < 0 ? '-' : ''}${(Math.abs(cents) / 100).toFixed(2)}`;
  const form = new FormData();
  const ref = `P-${++lineRefs}-${Date.now()}`;
  const file = camt053([{ date: '2025-05-15', amount, name: 'Counterparty', memo: 'Payment', id: ref }], { currency: m.base });
  form.append('file', new Blob([Buffer.from(file, 'utf8')]), 'statement.xml');
  r.stats.requests += 1;
  const res = await r.api.request('POST', `/bank-accounts/${r.accountId}/statements`, { token: r.token, rawBody: form });
  expect(res.status, res.text).toBe(200);
  const [line] = await db().query<{ id: string }>('SELECT id FROM bank_lines WHERE bank_account_id = :a AND external_id = :ref', {
    replacements: { a: r.accountId, ref },
    type: QueryTypes.SELECT,
  });
  return Number(line.id);
}

/**
 * §14: a bank line of the picked entry's signed amount (or one cent more, away from zero: the sums differ) is
 * imported, then matched to the entry.
 */
const matchCmd = fc.record({ pick: pickArb, off: fc.constantFrom(0, 0, 0, 1), matchable: fc.boolean() }).map(
  (c) =>
    new LedgerCommand(`match(${showPick(c.pick)} off=${c.off})`, hasEntries, async (m, r, note) => {
      const i = entryAt(m, c.matchable ? { among: 'matchable', n: c.pick.n } : c.pick);
      const e = m.entries[i];
      const cents = L.signedAmount(e) + Math.sign(L.signedAmount(e)) * c.off;
      note(`#${i} ${e.status} ${e.type} ${e.amount} line ${cents}${e.match !== null ? ' (matched)' : ''}`);
      r.lineIds.push(await importLine(m, r, cents));
      const line = L.applyImportLine(m, cents);
      const res = await call(r, 'POST', '/reconciliation/matches', { lineIds: [r.lineIds[line]], entryIds: [r.ids[i]] });
      if (expectOutcome(r, 'match', res, L.decideMatch(m, [line], [i]))) return;
      if (inClosed(m, i)) tallyPath(r, 'match: an entry dated in a closed period');
      L.applyMatch(m, [line], [i]);
      r.matchIds.push(res.body.id);
    }),
);
const inClosed = (m: L.Model, i: number) => L.inClosedPeriod(m, m.entries[i].date);

const unmatchCmd = fc.nat({ max: 1_000 }).map(
  (n) =>
    new LedgerCommand(
      `unmatch(${n})`,
      (m) => m.matches.length > 0,
      async (m, r, note) => {
        const x = n % m.matches.length;
        note(`match #${x}${m.matches[x].gone ? ' (gone)' : ''}`);
        const res = await call(r, 'DELETE', `/reconciliation/matches/${r.matchIds[x]}`);
        if (expectOutcome(r, 'unmatch', res, L.decideUnmatch(m, x))) return;
        L.applyUnmatch(m, x);
      },
    ),
);

/** §9 push of the picked entry to the run's provider (not of a record in CONFLICT: the table names no push from it). */
const pushCmd = pickArb.map(
  (pick) =>
    new LedgerCommand(`push(${showPick(pick)})`, hasEntries, async (m, r, note) => {
      const i = entryAt(m, pick);
      const e = m.entries[i];
      note(`#${i} ${e.status} sync ${e.sync}`);
      if (e.sync === 'CONFLICT') return;
      const res = await call(r, 'POST', '/accounting/sync/push', { entryId: r.ids[i], connectionId: r.connectionId });
      if (expectOutcome(r, 'push', res, L.decidePush(m, i))) return;
      expect(res.body).toMatchObject({ status: 'SYNCED' });
      r.externalIds[i] = res.body.externalId;
      L.applyPush(m, i);
    }),
);

/**
 * §9 pull after the provider changed the amount of the picked entry's record (an entry pushed before, whose record is
 * SYNCED or STALE): what the pull reports for it, the entry and the record's state against the model.
 */
const pullCmd = fc.record({ pick: pickArb, amount: newAmountArb }).map(
  (c) =>
    new LedgerCommand(`pull(${showPick(c.pick)} ${JSON.stringify(c.amount)})`, hasEntries, async (m, r, note) => {
      const pushed = m.entries.flatMap((e, k) => (e.sync === 'SYNCED' || e.sync === 'STALE' ? [k] : []));
      if (pushed.length === 0) return;
      const i = pushed[c.pick.n % pushed.length];
      const amount = resolveNewAmount(m, i, c.amount);
      note(`#${i} ${m.entries[i].status} sync ${m.entries[i].sync} ${m.entries[i].amount} → ${amount}`);
      (await genericProvider()).editExternally(r.externalIds[i]!, { amountCents: amount });
      const res = await call(r, 'POST', '/accounting/sync/pull', { connectionId: r.connectionId });
      expect(res.status, res.text).toBe(200);
      const outcome = L.decidePull(m, i, amount);
      expect(
        { updated: res.body.updated, conflicts: res.body.conflicts },
        `pull of #${i} (${m.entries[i].sync}, model: ${outcome})`,
      ).toEqual({ updated: outcome === 'UPDATED' ? 1 : 0, conflicts: outcome === 'CONFLICT' ? 1 : 0 });
      r.stats.commands += 1;
      tallyPath(r, `pull: ${m.entries[i].sync} → ${outcome}${m.entries[i].match !== null ? ' (matched)' : ''}`);
      L.applyPull(m, i, amount, outcome);
      const sync = await call(r, 'GET', `/accounting/sync/entry/${r.ids[i]}`);
      expect(
        (sync.body as { connectionId: string; status: string }[]).find((x) => x.connectionId === r.connectionId)?.status,
        `sync record of #${i}`,
      ).toBe(m.entries[i].sync);
    }),
);

/**
 * §4: the base currency changes only while the workspace has no entry, no rate and no bank account; after each
 * attempt the closed periods' totals are compared, in value and in currency (a relabelled period fails here).
 */
const workspaceCmd = fc.constantFrom('USD', 'EUR', 'GBP').map(
  (base) =>
    new LedgerCommand(`workspace(baseCurrency=${base})`, always, async (m, r, note) => {
      note(`${m.base} → ${base}, ${m.entries.length} entries${m.hasAccount ? ', a bank account' : ''}`);
      const res = await call(r, 'PATCH', `/workspaces/${r.workspaceId}`, { baseCurrency: base });
      if (!expectOutcome(r, 'workspace', res, L.decideWorkspace(m, base))) {
        if (base !== m.base) tallyPath(r, 'workspace: base currency changed (nothing stated in it)');
        L.applyWorkspace(m, base);
        expect(res.body).toMatchObject({ id: r.workspaceId, baseCurrency: base });
      }
      await compareClosedTotals(m, r);
    }),
);

/** Creates, refunds, corrections and status changes are listed twice (or aimed): they feed the other commands. */
export const ledgerCommands = (maxCommands: number, replayPath?: string) =>
  fc.commands(
    [
      createCmd,
      createCmd,
      editCmd,
      statusCmd,
      statusCmd,
      rejectCountedCmd,
      comebackCmd,
      voidCmd,
      refundCmd,
      refundCmd,
      reimburseCmd,
      correctCmd,
      correctCmd,
      createTagCmd,
      deleteTagCmd,
      putTagsCmd,
      periodCmd(true),
      periodCmd(false),
      matchCmd,
      matchCmd,
      unmatchCmd,
      pushCmd,
      pullCmd,
      pullCmd,
      workspaceCmd,
    ],
    { maxCommands, size: 'max', replayPath },
  );

// --------------------------------------------------------------------------------------------
// A run: a fresh workspace (member = the test user), three parties, four OPEN periods
// --------------------------------------------------------------------------------------------

export async function freshRun(api: Api, user: { id: string; token: string }, stats: Stats): Promise<{ model: L.Model; real: Real }> {
  const ws = await buildWorkspace({ members: [user.id], name: 'Ledger property' });
  const parties: number[] = [];
  for (let p = 0; p < 3; p++) parties.push((await buildParty(ws.id, { name: `Party ${p}` })).id);
  const real: Real = {
    api,
    token: user.token,
    workspaceId: ws.id,
    projectId: ws.projectIds[0],
    parties,
    periodIds: [],
    ids: [],
    tagIds: [],
    accountId: '',
    lineIds: [],
    matchIds: [],
    connectionId: '',
    externalIds: [],
    stats,
  };
  const generic = await genericProvider();
  const connection = await call(real, 'POST', '/accounting/connections', {
    workspaceId: ws.id,
    providerType: 'LEDGER_BOOKS',
    name: 'Books',
    credentials: { accessToken: PROVIDER_TOKEN },
    config: { baseUrl: generic.baseUrl },
    syncMode: 'MANUAL_PUSH',
    requireReview: false,
    requireCompletenessForSync: false,
  });
  if (connection.status !== 200 && connection.status !== 201) throw new Error(`connection setup: ${connection.status} ${connection.text}`);
  real.connectionId = connection.body.id;
  for (const p of PERIODS) {
    const res = await call(real, 'POST', '/accounting/periods', {
      workspaceId: ws.id,
      name: p.start.slice(0, 7),
      startDate: p.start,
      endDate: p.end,
    });
    if (res.status !== 200 && res.status !== 201) throw new Error(`period setup: ${res.status} ${res.text}`);
    real.periodIds.push(res.body.id);
  }
  stats.runs += 1;
  return { model: L.emptyModel(PERIODS), real };
}

/** `path` and `replayPath` (fast-check's, for command sequences) replay one failing run. */
export type PropertyOptions = { numRuns: number; maxCommands: number; seed: number; path?: string; replayPath?: string };

/**
 * The run sizes: `brief` for `npm test`, `hard` for `npm run test:hard` (or `TEST_BUDGET=hard`
 * on the brief file). LEDGER_SEED / LEDGER_PATH (replay one failure), LEDGER_RUNS and
 * LEDGER_MAX_COMMANDS override them.
 */
export const BUDGETS = {
  brief: { numRuns: 15, maxCommands: 40, seed: 20_251_010 },
  hard: { numRuns: 200, maxCommands: 80, seed: 20_251_011 },
} as const satisfies Record<string, PropertyOptions>;

export function propertyOptions(budget: keyof typeof BUDGETS): PropertyOptions {
  const chosen = process.env.TEST_BUDGET === 'hard' ? BUDGETS.hard : BUDGETS[budget];
  const num = (name: string, d: number) => (process.env[name] ? Number(process.env[name]) : d);
  const maxCommands = num('LEDGER_MAX_COMMANDS', chosen.maxCommands);
  // one list page holds every entry of a run (a command creates at most one)
  if (maxCommands > 95) throw new Error('LEDGER_MAX_COMMANDS above 95: the entry list of a run would not fit one page');
  return {
    numRuns: num('LEDGER_RUNS', chosen.numRuns),
    maxCommands,
    seed: num('LEDGER_SEED', chosen.seed),
    path: process.env.LEDGER_PATH || undefined,
    replayPath: process.env.LEDGER_REPLAY || undefined,
  };
}

/** Runs the property; on failure the error starts with the environment that replays it, then fast-check's report. */
export async function runLedgerProperty(api: Api, user: { id: string; token: string }, opts: PropertyOptions): Promise<Stats> {
  const stats = newStats();
  const details = await fc.check(
    fc.asyncProperty(ledgerCommands(opts.maxCommands, opts.replayPath), async (cmds) => {
      let run: { model: L.Model; real: Real } | undefined;
      await fc.asyncModelRun(async () => (run = await freshRun(api, user, stats)), cmds);
      if (run) await compareEverything(run.model, run.real);
    }),
    { numRuns: opts.numRuns, seed: opts.seed, path: opts.path, endOnFailure: process.env.LEDGER_SHRINK === '0' },
  );
  if (details.failed) {
    const replayPath = /replayPath="([^"]+)"/.exec(fc.stringify(details.counterexample))?.[1];
    const replay = `LEDGER_SEED=${details.seed} LEDGER_PATH=${details.counterexamplePath}${replayPath ? ` LEDGER_REPLAY='${replayPath}'` : ''}`;
    const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new Error(`ledger property failed; replay with ${replay}\n${await fc.asyncDefaultReportMessage(details)}\nCause: ${cause}`);
  }
  return stats;
}
