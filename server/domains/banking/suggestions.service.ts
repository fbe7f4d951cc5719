import { QueryTypes } from 'sequelize';
import { db } from '../../db/database.js';
import type { Actor } from '../../lib/scope.js';
import type { SuggestionObject } from '../../../shared/contracts/banking.js';
import { loadAccount } from './account-rows.js';
import { loadLine, type LineRow } from './line-rows.js';
import { compact, normaliseText, referenceTokens, similarity } from '../../lib/text-match.js';

type Candidate = {
  id: string;
  amount_cents: number;
  entry_date: string;
  description: string | null;
  reference: string | null;
  party_name: string | null;
};

export const SUGGESTIONS_MAX = 5;
/** Bounds of the group search: the closest candidates by date, and the steps of the subset-sum walk. */
const GROUP_POOL = 40;
const GROUP_STEPS = 50_000;
const GROUP_FOUND_MAX = 25;
const SINGLES_MAX = 50;

/** Candidate entries of a line (CONTRACT §14): exact amount, or below it for groups; closest dates first. */
async function candidates(line: LineRow, ws: number, tolerance: number, exact: boolean): Promise<Candidate[]> {
  return db().query<Candidate>(
    `SELECT e.id, e.amount_cents, e.entry_date, e.description, e.reference,
            (SELECT p.name FROM parties p WHERE p.workspace_id = e.workspace_id AND p.id = CASE WHEN e.entry_type = 'INCOME' THEN e.from_party_id ELSE e.to_party_id END) AS party_name
       FROM entries e
      WHERE e.workspace_id = $1 AND e.base_currency = $2 AND e.entry_type = $3
        AND e.entry_status IN ('PENDING', 'UNDER_REVIEW', 'COMPLETED')
        AND e.entry_date BETWEEN $4::date - $5::int AND $4::date + $5::int
        AND ${exact ? 'e.amount_cents = $6' : 'e.amount_cents < $6'}
        AND NOT EXISTS (SELECT 1 FROM bank_match_entries me WHERE me.workspace_id = e.workspace_id AND me.entry_id = e.id)
      ORDER BY abs(e.entry_date - $4::date), e.id
      LIMIT $7`,
    {
      bind: [
        ws,
        line.currency.trim(),
        line.amount_cents > 0 ? 'INCOME' : 'EXPENSE',
        line.booking_date,
        tolerance,
        Math.abs(line.amount_cents),
        exact ? SINGLES_MAX : GROUP_POOL,
      ],
      type: QueryTypes.SELECT,
    },
  );
}

/**
 * Groups of 2..5 candidates adding up to `target` exactly: a depth-first walk over amounts sorted
 * high to low, pruned by the remaining sum, stopped after GROUP_STEPS steps (never exponential).
 */
export function findGroups(pool: { amount: number }[], target: number): number[][] {
  const order = pool.map((c, i) => ({ i, amount: c.amount })).sort((a, b) => b.amount - a.amount);
  const suffix: number[] = new Array(order.length + 1).fill(0);
  for (let k = order.length - 1; k >= 0; k--) suffix[k] = suffix[k + 1] + order[k].amount;
  const found: number[][] = [];
  let steps = 0;
  const pick: number[] = [];
  const walk = (start: number, remaining: number): void => {
    for (let k = start; k < order.length; k++) {
      if (++steps > GROUP_STEPS || found.length >= GROUP_FOUND_MAX) return;
      const a = order[k].amount;
      if (a > remaining) continue;
      if (suffix[k] < remaining) return; // even all the rest cannot reach it
      pick.push(order[k].i);
      if (a === remaining) {
        if (pick.length >= 2) found.push([...pick]);
      } else if (pick.length < 5) walk(k + 1, remaining - a);
      pick.pop();
    }
  };
  walk(0, target);
  return found;
}

const daysBetween = (a: string, b: string) => Math.abs(Date.parse(a) - Date.parse(b)) / 86_400_000;

type Ranked = SuggestionObject & { key: number[] };

function rank(line: LineRow, group: Candidate[], tolerance: number): Ranked {
  const lineText = normaliseText(`${line.description ?? ''} ${line.counterparty_name ?? ''}`);
  const lineCompact = compact(`${line.reference ?? ''} ${line.description ?? ''}`);
  const days = group.reduce((s, c) => s + daysBetween(c.entry_date, line.booking_date), 0) / group.length;
  const date = 1 - days / (tolerance + 1);
  const refHits = group.filter((c) => referenceTokens(c.reference, c.description).some((t) => lineCompact.includes(t))).length;
  const reference = refHits / group.length;
  const text = Math.max(
    ...group.map((c) =>
      Math.max(
        similarity(lineText, normaliseText(`${c.description ?? ''} ${c.party_name ?? ''}`)),
        similarity(normaliseText(line.counterparty_name), normaliseText(c.party_name)),
      ),
    ),
  );
  const amount = group.length === 1 ? 1 : 0.8; // a single entry of the exact amount fits better than a split
  const round = (x: number) => Math.round(Math.max(0, Math.min(1, x)) * 1000) / 1000;
  const reasons = { amount: round(amount), date: round(date), text: round(text), reference: round(reference) };
  return {
    entryIds: group.map((c) => Number(c.id)).sort((a, b) => a - b),
    amountCents: group.reduce((s, c) => s + c.amount_cents, 0),
    score: round(0.4 * amount + 0.3 * reference + 0.2 * date + 0.1 * text),
    reasons,
    // CONTRACT §14 order: amount fit, then a reference found, then the closer date, then text similarity
    key: [amount, reference, -days, text],
  };
}

const byKey = (a: Ranked, b: Ranked) => {
  for (let i = 0; i < a.key.length; i++) if (a.key[i] !== b.key[i]) return b.key[i] - a.key[i];
  return a.entryIds[0] - b.entryIds[0];
};

/** GET /bank-lines/{id}/suggestions: at most 5, best first. */
export async function suggestionsFor(actor: Actor, lineId: number): Promise<SuggestionObject[]> {
  const line = await loadLine(actor, lineId);
  if (line.status !== 'UNMATCHED' || line.amount_cents === 0) return [];
  const account = await loadAccount(null, line.bank_account_id);
  const tolerance = account.date_tolerance_days;
  const [singles, pool] = await Promise.all([
    candidates(line, account.workspace_id, tolerance, true),
    candidates(line, account.workspace_id, tolerance, false),
  ]);
  const target = Math.abs(line.amount_cents);
  const groups = findGroups(
    pool.map((c) => ({ amount: c.amount_cents })),
    target,
  ).map((idx) => idx.map((i) => pool[i]));
  const ranked = [...singles.map((c) => rank(line, [c], tolerance)), ...groups.map((g) => rank(line, g, tolerance))].sort(byKey);
  return ranked.slice(0, SUGGESTIONS_MAX).map(({ key: _key, ...s }) => s);
}
