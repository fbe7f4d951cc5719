import type { z } from 'zod/v4';
import { transaction, type Transaction } from '../../db/database.js';
import { parseInput, postgresErrorOf } from '../../lib/errors.js';
import {
  IngestEnvelope,
  IngestItem,
  type IngestItemResult,
  type IngestResponse,
  type PartyRef,
} from '../../../shared/contracts/integrations.js';
import { ledger, type EventActor } from '../entries/index.js';
import type { IngestCaller } from './ingest-auth.js';
import { findOrCreateParties, findOrCreateTags, type NameIds, type NewParty } from './ingest-names.js';
import { loadRuleContext, ruleError } from './ingest-rules.js';
import { existingEntryIds } from './ingest-writes.js';
import { outOfScopeByRules } from './ingest-scope.js';

type Candidate = { index: number; item: IngestItem };
type Results = Map<number, IngestItemResult>;

const MAX_ATTEMPTS = 3;
const RETRYABLE = new Set(['40P01', '40001']); // deadlock detected, serialization failure

const externalIdOf = (raw: unknown): string | null =>
  raw && typeof raw === 'object' && typeof (raw as { externalId?: unknown }).externalId === 'string'
    ? (raw as { externalId: string }).externalId
    : null;

const describeIssues = (issues: z.core.$ZodIssue[]): string =>
  issues.map((i) => `${i.path.length ? i.path.join('.') : 'entry'}: ${i.message}`).join('; ');

const created = (c: Candidate, entryId: number): IngestItemResult => ({ externalId: c.item.externalId, status: 'CREATED', entryId });
const duplicate = (c: Candidate, entryId: number | undefined): IngestItemResult => ({
  externalId: c.item.externalId,
  status: 'DUPLICATE',
  ...(entryId !== undefined ? { entryId } : {}),
});
const failed = (externalId: string | null, error: string): IngestItemResult => ({ externalId, status: 'ERROR', error });

/**
 * POST /api/v1/ingest (CONTRACT §11): each item is validated and judged on its own; the
 * writable ones go to the database set-based in one transaction. Idempotent per
 * (integration, externalId) through the unique index, also when identical requests race.
 */
export async function ingestEntries(caller: IngestCaller, body: unknown): Promise<IngestResponse> {
  const raw = parseInput(IngestEnvelope, body).entries;
  const results: Results = new Map();
  const valid: Candidate[] = [];
  raw.forEach((entry, index) => {
    const parsed = IngestItem.safeParse(entry);
    if (parsed.success) valid.push({ index, item: parsed.data });
    else results.set(index, failed(externalIdOf(entry), describeIssues(parsed.error.issues)));
  });
  if (valid.length > 0) {
    const written = await withRetry(() => transaction((tx) => writeBatch(tx, caller, valid)));
    for (const [index, result] of written) results.set(index, result);
  }
  const ordered = raw.map((_, index) => results.get(index)!);
  return {
    created: ordered.filter((r) => r.status === 'CREATED').length,
    duplicates: ordered.filter((r) => r.status === 'DUPLICATE').length,
    failed: ordered.filter((r) => r.status === 'ERROR').length,
    results: ordered,
  };
}

/** A deadlock or serialization failure rolls the whole batch back; it is then simply run again. */
async function withRetry<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      const code = postgresErrorOf(err)?.code;
      if (attempt >= MAX_ATTEMPTS || !code || !RETRYABLE.has(code)) throw err;
    }
  }
}

async function writeBatch(tx: Transaction, caller: IngestCaller, candidates: Candidate[]): Promise<Results> {
  const results: Results = new Map();
  // 1. already ingested earlier: DUPLICATE, whatever the item says now
  const existing = await existingEntryIds(tx, caller.id, [...new Set(candidates.map((c) => c.item.externalId))]);
  const fresh = candidates.filter((c) => {
    const entryId = existing.get(c.item.externalId);
    if (entryId !== undefined) results.set(c.index, duplicate(c, entryId));
    return entryId === undefined;
  });
  // 2. per-item rules: project, scope, closed period, parties by id
  const ctx = await loadRuleContext(
    tx,
    caller.workspaceId,
    fresh.map((c) => c.item),
  );
  const checked = fresh.filter((c) => {
    const error = ruleError(c.item, caller, ctx);
    if (error) results.set(c.index, failed(c.item.externalId, error));
    return !error;
  });
  // 2b. a scoped integration: where the rules (trigger INGEST) would move each item stays in scope
  const moved = await outOfScopeByRules(
    tx,
    caller,
    checked.map((c) => c.item),
  );
  const accepted = checked.filter((c, i) => {
    if (moved[i]) results.set(c.index, failed(c.item.externalId, moved[i]));
    return !moved[i];
  });
  // 3. the same externalId twice in this batch: the first one is written, the later ones are DUPLICATE
  const first = new Map<string, Candidate>();
  const repeats: Candidate[] = [];
  for (const c of accepted) {
    if (first.has(c.item.externalId)) repeats.push(c);
    else first.set(c.item.externalId, c);
  }
  const toWrite = [...first.values()];
  // 4. parties and tags by name, found or created
  const parties = await findOrCreateParties(tx, caller.workspaceId, partiesNamedBy(toWrite));
  const tags = await findOrCreateTags(tx, caller.workspaceId, [...new Set(toWrite.flatMap((c) => c.item.tagNames ?? []))]);
  // 5. the entries, their tags, events and reactions, set-based through the ledger core; rows a racing request wrote first come back missing
  const actor: EventActor = { actorType: 'INTEGRATION', actorId: caller.id };
  const rows = await ledger.createIngested(
    tx,
    { workspaceId: caller.workspaceId, entrySourceId: caller.entrySourceId, integrationId: caller.id },
    toWrite.map(({ item }) => ({
      externalId: item.externalId,
      projectId: item.projectId,
      entryType: item.entryType,
      amountCents: item.amountCents,
      baseCurrency: item.baseCurrency,
      entryDate: item.entryDate,
      description: item.description ?? null,
      reference: item.reference ?? null,
      fromPartyId: partyIdFor(item.fromParty, parties),
      toPartyId: partyIdFor(item.toParty, parties),
      tagIds: (item.tagNames ?? []).map((name) => tags.get(name)).filter((id): id is number => id !== undefined),
    })),
    actor,
  );
  const byExternalId = new Map(rows.map((r) => [r.external_id, r]));
  const lost = toWrite.filter((c) => !byExternalId.has(c.item.externalId)).map((c) => c.item.externalId);
  const raced = await existingEntryIds(tx, caller.id, lost);
  const entryIdOf = new Map<string, number | undefined>();
  for (const c of toWrite) {
    const row = byExternalId.get(c.item.externalId);
    const result = row ? created(c, row.id) : duplicate(c, raced.get(c.item.externalId));
    results.set(c.index, result);
    entryIdOf.set(c.item.externalId, result.entryId);
  }
  for (const c of repeats) results.set(c.index, duplicate(c, entryIdOf.get(c.item.externalId)));
  return results;
}

function partiesNamedBy(items: Candidate[]): NewParty[] {
  const wanted = new Map<string, NewParty>();
  for (const { item } of items) {
    for (const ref of [item.fromParty, item.toParty]) {
      if (!ref || !('name' in ref) || wanted.has(ref.name)) continue;
      wanted.set(ref.name, { name: ref.name, partyType: ref.partyType ?? 'ORGANIZATION', country: ref.country ?? null });
    }
  }
  return [...wanted.values()];
}

function partyIdFor(ref: PartyRef | undefined, byName: NameIds): number | null {
  if (!ref) return null;
  return 'id' in ref ? ref.id : (byName.get(ref.name) ?? null);
}
