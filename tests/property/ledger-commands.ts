/**
 * Model-based test of the ledger: fast-check generates sequences of create / edit / status /
 * void / refund / reimburse / correct / close / reopen; each command asks the model
 * (ledger-model.ts) what must happen, sends the request over real HTTP, and compares the
 * answer (status and error code, or the written object) and then the whole observable state
 * (every entry of the run's workspace, the touched entries' related links and audit-event
 * counts, the periods) with the model. Shared by tests/property (fast) and tests/hard (long).
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { buildParty, buildWorkspace } from '../support/factories.js';
import { expectErrorBody, type Api, type ApiResponse } from '../support/http.js';
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

export type Stats = {
  runs: number;
  commands: number;
  accepted: number;
  refused: number;
  byCommand: Record<string, { accepted: number; refused: number }>;
  byRule: Record<string, number>;
  /** accepted commands that took a notable path of the rules */
  paths: Record<string, number>;
  requests: number;
};
export const newStats = (): Stats => ({ runs: 0, commands: 0, accepted: 0, refused: 0, byCommand: {}, byRule: {}, paths: {}, requests: 0 });

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
  stats: Stats;
};

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
 * meet voided entries), a refund / reimbursement / correction entry, or an entry that has such
 * derived entries. Resolved against the model (falling back to any entry).
 */
type Pick = { among: 'any' | 'live' | 'derived' | 'original'; n: number };
const pickArb: fc.Arbitrary<Pick> = fc.record({
  among: fc.constantFrom<Pick['among']>('any', 'live', 'live', 'derived', 'original'),
  n: fc.nat({ max: 1_000 }),
});
const withReasonArb = fc.oneof({ arbitrary: fc.constant(true), weight: 4 }, { arbitrary: fc.constant(false), weight: 1 });

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
/** Edit amounts around what refunds plus reimbursements already use (the lower bound of an edit). */
type EditAmountSpec = { kind: 'used' } | { kind: 'belowUsed' } | { kind: 'abs'; value: number };
const editAmountArb: fc.Arbitrary<EditAmountSpec> = fc.oneof(
  fc.constant({ kind: 'used' as const }),
  fc.constant({ kind: 'belowUsed' as const }),
  fc.integer({ min: 1, max: 20_000 }).map((value) => ({ kind: 'abs' as const, value })),
);

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
  };
}
const pickView = (x: Record<string, unknown>) => ({
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

/** `GET /related` and the audit-event count (with a valid hash chain) of one entry. */
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
  expect(verify.body, `events of #${i}`).toEqual({ valid: true, count: m.entries[i].events, firstBrokenEventId: null });
}

async function comparePeriods(m: L.Model, r: Real): Promise<void> {
  const res = await call(r, 'GET', `/accounting/periods?workspaceId=${r.workspaceId}`);
  expect(res.status, res.text).toBe(200);
  const status = new Map<string, string>(res.body.map((p: { id: string; status: string }) => [p.id, p.status]));
  expect(r.periodIds.map((id) => status.get(id))).toEqual(m.periods.map((p) => (p.closed ? 'CLOSED' : 'OPEN')));
}

/** The whole observable state; run after every command, and (with every entry's links and events) at the end of a run. */
export async function compareAll(m: L.Model, r: Real, deep: number[]): Promise<void> {
  await compareEntries(m, r);
  for (const i of new Set(deep)) await compareEntryDeep(m, r, i);
}

/** The answer itself: the exact refusal, or a 200/201 (the written object is compared by the caller). */
function expectOutcome(r: Real, name: string, res: ApiResponse, refusal: L.Refusal | null): void {
  const tally = (r.stats.byCommand[name] ??= { accepted: 0, refused: 0 });
  r.stats.commands += 1;
  if (refusal) {
    if (res.status !== refusal.status)
      throw new Error(`model refuses (${refusal.rule}: ${refusal.status}), service answered ${res.status} ${res.text}`);
    expectErrorBody(res, refusal.status, refusal.code);
    r.stats.refused += 1;
    tally.refused += 1;
    r.stats.byRule[refusal.rule] = (r.stats.byRule[refusal.rule] ?? 0) + 1;
    return;
  }
  if (res.status !== 200 && res.status !== 201) throw new Error(`model accepts, service answered ${res.status} ${res.text}`);
  r.stats.accepted += 1;
  tally.accepted += 1;
}

// --------------------------------------------------------------------------------------------
// Commands
// --------------------------------------------------------------------------------------------

type Step = (m: L.Model, r: Real, note: (s: string) => void) => Promise<void>;

class LedgerCommand implements fc.AsyncCommand<L.Model, Real> {
  private resolved = '';
  constructor(
    private readonly label: string,
    private readonly needsEntry: boolean,
    private readonly step: Step,
  ) {}
  check(m: Readonly<L.Model>): boolean {
    return !this.needsEntry || m.entries.length > 0;
  }
  async run(m: L.Model, r: Real): Promise<void> {
    this.resolved = '';
    await this.step(m, r, (s) => (this.resolved = s));
  }
  toString(): string {
    return `${this.label}${this.resolved ? ` {${this.resolved}}` : ''}`;
  }
}

let reasons = 0;
const nextReason = () => `reason-${++reasons}`;
function entryAt(m: L.Model, pick: Pick): number {
  const all = m.entries.map((_, i) => i);
  const candidates =
    pick.among === 'live'
      ? all.filter((i) => m.entries[i].status !== 'VOIDED')
      : pick.among === 'derived'
        ? all.filter((i) => m.links.some((l) => l.derived === i))
        : pick.among === 'original'
          ? all.filter((i) => m.links.some((l) => l.original === i))
          : all;
  const from = candidates.length > 0 ? candidates : all;
  return from[pick.n % from.length];
}
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
  })
  .map(
    (c) =>
      new LedgerCommand(`create(${c.type} ${c.amount} ${c.date})`, false, async (m, r) => {
        const refusal = L.decideCreate(m, c);
        const res = await call(r, 'POST', '/entries', {
          projectId: r.projectId,
          entryType: c.type,
          amountCents: c.amount,
          baseCurrency: 'USD',
          entryDate: c.date,
          description: c.description,
          fromPartyId: r.parties[c.from],
          toPartyId: r.parties[c.to],
        });
        expectOutcome(r, 'create', res, refusal);
        const deep: number[] = [];
        if (!refusal) {
          const i = L.applyCreate(m, c);
          r.ids.push(res.body.id);
          expect(pickView(res.body)).toEqual(viewOf(r, m.entries[i]));
          deep.push(i);
        }
        await compareAll(m, r, deep);
      }),
  );

const editCmd = fc
  .record({
    pick: pickArb,
    amount: fc.option(editAmountArb, { nil: undefined }),
    date: fc.option(dateArb, { nil: undefined }),
    description: fc.option(descriptionArb, { nil: undefined }),
  })
  .map(
    (c) =>
      new LedgerCommand(
        `edit(${showPick(c.pick)} ${JSON.stringify({ amount: c.amount, date: c.date, description: c.description })})`,
        true,
        async (m, r, note) => {
          const i = entryAt(m, c.pick);
          const used = L.derivedTotal(m, i, ['REFUND', 'REIMBURSEMENT']);
          const amount =
            c.amount === undefined
              ? undefined
              : c.amount.kind === 'abs'
                ? c.amount.value
                : Math.max(1, c.amount.kind === 'used' ? used : used - 1);
          const input: L.EditInput = { amount, date: c.date, description: c.description };
          note(`#${i} amount=${amount}`);
          const refusal = L.decideEdit(m, i, input);
          const res = await call(r, 'PATCH', `/entries/${r.ids[i]}`, {
            ...(amount !== undefined ? { amountCents: amount } : {}),
            ...(c.date !== undefined ? { entryDate: c.date } : {}),
            ...(c.description !== undefined ? { description: c.description } : {}),
          });
          expectOutcome(r, 'edit', res, refusal);
          if (!refusal) {
            if (amount !== undefined && m.links.some((l) => l.derived === i && l.type !== 'CORRECTION'))
              tallyPath(r, 'edit: amount of a refund/reimbursement');
            if (amount !== undefined && used > 0) tallyPath(r, 'edit: amount of an entry with refunds/reimbursements');
            L.applyEdit(m, i, input);
            expect(pickView(res.body)).toEqual(viewOf(r, m.entries[i]));
          }
          await compareAll(m, r, [i]);
        },
      ),
  );

const statusCmd = fc.record({ pick: pickArb, to: fc.constantFrom(...L.STATUSES), withReason: withReasonArb }).map(
  (c) =>
    new LedgerCommand(`status(${showPick(c.pick)} → ${c.to}${c.withReason ? '' : ', no reason'})`, true, async (m, r, note) => {
      const i = entryAt(m, c.pick);
      const reason = c.withReason ? nextReason() : undefined;
      note(`#${i} ${m.entries[i].status} → ${c.to}`);
      const refusal = L.decideStatus(m, i, c.to, reason);
      const res = await call(r, 'PATCH', `/entries/${r.ids[i]}/status`, reason === undefined ? { status: c.to } : { status: c.to, reason });
      expectOutcome(r, 'status', res, refusal);
      if (!refusal) {
        L.applyStatus(m, i, c.to, reason);
        expect(pickView(res.body)).toEqual(viewOf(r, m.entries[i]));
      }
      await compareAll(m, r, [i]);
    }),
);

const voidCmd = pickArb.map(
  (pick) =>
    new LedgerCommand(`void(${showPick(pick)})`, true, async (m, r, note) => {
      const i = entryAt(m, pick);
      const reason = nextReason();
      note(`#${i} ${m.entries[i].status}`);
      const refusal = L.decideVoid(m, i);
      const res = await call(r, 'POST', `/entries/${r.ids[i]}/void`, { reason });
      expectOutcome(r, 'void', res, refusal);
      if (!refusal) {
        L.applyVoid(m, i, reason);
        expect(pickView(res.body)).toEqual(viewOf(r, m.entries[i]));
      }
      await compareAll(m, r, [i]);
    }),
);

/** After a refund or reimbursement: the new entry's answer, and the related links of both sides. */
function afterDerive(m: L.Model, r: Real, i: number, res: ApiResponse, derived: number | undefined): Promise<void> {
  if (derived !== undefined) {
    r.ids.push(res.body.id);
    expect(pickView(res.body), 'the new entry').toEqual(viewOf(r, m.entries[derived]));
  }
  return compareAll(m, r, derived === undefined ? [i] : [i, derived]);
}

const refundCmd = fc.record({ pick: pickArb, amount: amountSpecArb, date: dateArb }).map(
  (c) =>
    new LedgerCommand(`refund(${showPick(c.pick)} ${JSON.stringify(c.amount)} ${c.date})`, true, async (m, r, note) => {
      const i = entryAt(m, c.pick);
      const input: L.DeriveInput = { amount: resolveAmount(c.amount, L.remaining(m, i, 'REFUND')), date: c.date, description: 'Refund' };
      note(`#${i} ${m.entries[i].status} amount=${input.amount}`);
      const refusal = L.decideRefund(m, i, input);
      const res = await call(r, 'POST', `/entries/${r.ids[i]}/refund`, {
        amountCents: input.amount,
        entryDate: input.date,
        description: input.description,
      });
      expectOutcome(r, 'refund', res, refusal);
      const derived = refusal ? undefined : L.applyRefund(m, i, input);
      if (derived !== undefined && L.remaining(m, i, 'REFUND') === 0) {
        tallyPath(
          r,
          m.entries[i].statusReason === 'Fully refunded'
            ? 'refund: full, original voided'
            : 'refund: full, original in a closed period kept',
        );
      }
      await afterDerive(m, r, i, res, derived);
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
        true,
        async (m, r, note) => {
          const i = entryAt(m, c.pick);
          const input: L.ReimburseInput = {
            amount: resolveAmount(c.amount, L.remaining(m, i, 'REIMBURSEMENT')),
            date: c.date,
            description: 'Reimbursement',
            entryType: c.entryType,
            from: c.from,
            to: c.to,
          };
          note(`#${i} ${m.entries[i].type} ${m.entries[i].status} amount=${input.amount}`);
          const refusal = L.decideReimburse(m, i, input);
          const res = await call(r, 'POST', `/entries/${r.ids[i]}/reimburse`, {
            amountCents: input.amount,
            entryDate: input.date,
            description: input.description,
            fromPartyId: r.parties[c.from],
            toPartyId: r.parties[c.to],
            ...(c.entryType ? { entryType: c.entryType } : {}),
          });
          expectOutcome(r, 'reimburse', res, refusal);
          if (!refusal && input.amount === L.remaining(m, i, 'REIMBURSEMENT')) tallyPath(r, 'reimburse: the whole remainder');
          await afterDerive(m, r, i, res, refusal ? undefined : L.applyReimburse(m, i, input));
        },
      ),
  );

const correctCmd = fc
  .record({
    pick: pickArb,
    amount: fc.option(fc.integer({ min: 1, max: 20_000 }), { nil: undefined }),
    date: fc.option(dateArb, { nil: undefined }),
  })
  .map(
    (c) =>
      new LedgerCommand(`correct(${showPick(c.pick)} amount=${c.amount ?? '-'} date=${c.date ?? '-'})`, true, async (m, r, note) => {
        const i = entryAt(m, c.pick);
        const input: L.CorrectInput = { reason: nextReason(), amount: c.amount, date: c.date };
        note(`#${i} ${m.entries[i].status}`);
        const refusal = L.decideCorrect(m, i, input);
        const res = await call(r, 'POST', `/entries/${r.ids[i]}/correct`, {
          reason: input.reason,
          ...(c.amount !== undefined ? { amountCents: c.amount } : {}),
          ...(c.date !== undefined ? { entryDate: c.date } : {}),
        });
        expectOutcome(r, 'correct', res, refusal);
        await afterDerive(m, r, i, res, refusal ? undefined : L.applyCorrect(m, i, input));
      }),
  );

const periodCmd = (close: boolean) =>
  fc.integer({ min: 0, max: PERIODS.length - 1 }).map(
    (p) =>
      new LedgerCommand(`${close ? 'close' : 'reopen'}(${PERIODS[p].start.slice(0, 7)})`, false, async (m, r) => {
        const refusal = L.decidePeriod(m, p, close);
        const res = await call(r, 'PATCH', `/accounting/periods/${r.periodIds[p]}/${close ? 'close' : 'reopen'}`);
        expectOutcome(r, close ? 'close' : 'reopen', res, refusal);
        if (!refusal) {
          L.applyPeriod(m, p, close);
          expect(res.body).toMatchObject({ id: r.periodIds[p], status: close ? 'CLOSED' : 'OPEN' });
        }
        await comparePeriods(m, r);
        await compareEntries(m, r);
      }),
  );

/** Creates, refunds and status changes are listed twice: they feed the other commands. */
export const ledgerCommands = (maxCommands: number) =>
  fc.commands(
    [
      createCmd,
      createCmd,
      editCmd,
      statusCmd,
      statusCmd,
      voidCmd,
      refundCmd,
      refundCmd,
      reimburseCmd,
      correctCmd,
      periodCmd(true),
      periodCmd(false),
    ],
    { maxCommands, size: 'max' },
  );

// --------------------------------------------------------------------------------------------
// A run: a fresh workspace (member = the test user), three parties, four OPEN periods
// --------------------------------------------------------------------------------------------

export async function freshRun(api: Api, user: { id: string; token: string }, stats: Stats): Promise<{ model: L.Model; real: Real }> {
  const ws = await buildWorkspace({ members: [user.id], name: 'Ledger property' });
  const parties: number[] = [];
  for (let p = 0; p < 3; p++) parties.push((await buildParty(ws.id, { name: `Party ${p}` })).id);
  const real: Real = { api, token: user.token, workspaceId: ws.id, projectId: ws.projectIds[0], parties, periodIds: [], ids: [], stats };
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

export type PropertyOptions = { numRuns: number; maxCommands: number; seed: number };

/** Options from the file's defaults, overridable by LEDGER_SEED / LEDGER_RUNS / LEDGER_MAX_COMMANDS. */
export function propertyOptions(defaults: PropertyOptions): PropertyOptions {
  const num = (name: string, d: number) => (process.env[name] ? Number(process.env[name]) : d);
  return {
    numRuns: num('LEDGER_RUNS', defaults.numRuns),
    maxCommands: num('LEDGER_MAX_COMMANDS', defaults.maxCommands),
    seed: num('LEDGER_SEED', defaults.seed),
  };
}

/** Runs the property; fast-check prints the seed, the replay path and the shrunk command list on failure. */
export async function runLedgerProperty(api: Api, user: { id: string; token: string }, opts: PropertyOptions): Promise<Stats> {
  const stats = newStats();
  await fc.assert(
    fc.asyncProperty(ledgerCommands(opts.maxCommands), async (cmds) => {
      let run: { model: L.Model; real: Real } | undefined;
      await fc.asyncModelRun(async () => (run = await freshRun(api, user, stats)), cmds);
      if (!run) return;
      // at the end of a run: every entry's related links and audit-event count
      await compareAll(
        run.model,
        run.real,
        run.model.entries.map((_, i) => i),
      );
      await comparePeriods(run.model, run.real);
    }),
    { numRuns: opts.numRuns, seed: opts.seed, endOnFailure: process.env.LEDGER_SHRINK === '0' },
  );
  return stats;
}
