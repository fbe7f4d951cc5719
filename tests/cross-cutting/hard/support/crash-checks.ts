import pg from 'pg';
import type { Api } from '../../../support/http.js';
import type { CrashWorld, Ledger } from './crash-load.js';

type Row = {
  id: number;
  reference: string | null;
  amount_cents: string;
  integration_id: string | null;
  external_id: string | null;
  items: number;
  item_sum: string;
  txs: number;
  tx_sum: string;
  tags: number;
  from_party: string | null;
};

export type CrashFigures = {
  ackedEntries: number;
  ackedEntriesFound: number;
  ackedItems: number;
  ackedItemsFound: number;
  entriesInDb: number;
  committedButUnacked: number;
  partialBatches: number;
};

export async function withClient<T>(url: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

/**
 * The database after a crash, against everything the load sent (all rounds so far): every
 * acknowledged write is there with the id it was acknowledged with; every entry is whole (its
 * ENTRY_CREATED event first, an intact event chain, its items, payment and tags); nothing exists
 * that was not sent, nothing twice; parties and tags named by ingest exist once.
 */
export async function checkAfterCrash(
  url: string,
  w: CrashWorld,
  ledgers: Ledger[],
): Promise<{ problems: string[]; figures: CrashFigures }> {
  return withClient(url, async (c) => {
    const problems: string[] = [];
    const rows = (
      await c.query<Row>(
        `SELECT e.id, e.reference, e.amount_cents, e.integration_id, e.external_id,
                (SELECT count(*)::int FROM entry_items i WHERE i.entry_id = e.id) AS items,
                (SELECT coalesce(sum(i.amount_cents), 0) FROM entry_items i WHERE i.entry_id = e.id) AS item_sum,
                (SELECT count(*)::int FROM entry_transactions t WHERE t.entry_id = e.id) AS txs,
                (SELECT coalesce(sum(t.amount_cents), 0) FROM entry_transactions t WHERE t.entry_id = e.id) AS tx_sum,
                (SELECT count(*)::int FROM entry_tags g WHERE g.entry_id = e.id) AS tags,
                (SELECT p.name FROM parties p WHERE p.id = e.from_party_id) AS from_party
           FROM entries e WHERE e.workspace_id = $1`,
        [w.workspaceId],
      )
    ).rows;
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    const sentEntries = new Map(ledgers.flatMap((l) => l.entries).map((e) => [e.key, e]));
    const sentItems = new Map(
      ledgers.flatMap((l) => l.batches).flatMap((b) => b.body.entries.map((item) => [item.externalId as string, item] as const)),
    );

    // nothing unknown, nothing twice, every entry whole
    const seenRef = new Set<string>();
    const seenExt = new Set<string>();
    for (const r of rows) {
      if (r.integration_id === null) {
        const sent = r.reference ? sentEntries.get(r.reference) : undefined;
        if (!sent) {
          problems.push(`entry ${r.id}: reference ${r.reference} was never sent`);
          continue;
        }
        if (seenRef.has(sent.key)) problems.push(`entry for ${sent.key} exists twice`);
        seenRef.add(sent.key);
        if (Number(r.amount_cents) !== sent.body.amountCents) problems.push(`entry ${r.id}: amount ${r.amount_cents} != sent`);
        if (r.items !== 2 || Number(r.item_sum) !== sent.body.amountCents)
          problems.push(`entry ${r.id}: items ${r.items} sum ${r.item_sum}`);
        if (r.txs !== 1 || Number(r.tx_sum) !== sent.body.amountCents)
          problems.push(`entry ${r.id}: transactions ${r.txs} sum ${r.tx_sum}`);
        if (r.tags !== sent.body.tagIds.length) problems.push(`entry ${r.id}: ${r.tags} tags, sent ${sent.body.tagIds.length}`);
      } else {
        const sent = r.external_id ? sentItems.get(r.external_id) : undefined;
        if (!sent || r.integration_id !== w.integrationId) {
          problems.push(`entry ${r.id}: externalId ${r.external_id} was never sent`);
          continue;
        }
        if (seenExt.has(sent.externalId)) problems.push(`externalId ${sent.externalId} exists twice`);
        seenExt.add(sent.externalId);
        if (Number(r.amount_cents) !== sent.amountCents) problems.push(`ingested ${r.id}: amount differs`);
        if (r.tags !== new Set(sent.tagNames).size) problems.push(`ingested ${r.id}: ${r.tags} tags, sent ${sent.tagNames.length}`);
        if (r.from_party !== sent.fromParty.name) problems.push(`ingested ${r.id}: from party ${r.from_party}`);
      }
    }

    // the audit trail: ENTRY_CREATED at seq 1 with no predecessor, contiguous seqs, each linked to the one before
    const noCreated = await c.query(
      `SELECT e.id FROM entries e WHERE e.workspace_id = $1 AND NOT EXISTS
         (SELECT 1 FROM entry_events ev WHERE ev.entry_id = e.id AND ev.seq = 1 AND ev.kind = 'ENTRY_CREATED' AND ev.prev_hash IS NULL)`,
      [w.workspaceId],
    );
    for (const r of noCreated.rows) problems.push(`entry ${r.id}: no ENTRY_CREATED event at the head of its chain`);
    const broken = await c.query(
      `SELECT ev.entry_id, ev.seq FROM entry_events ev
         LEFT JOIN entry_events p ON p.entry_id = ev.entry_id AND p.seq = ev.seq - 1
        WHERE ev.workspace_id = $1 AND ev.seq > 1 AND (p.id IS NULL OR p.hash IS DISTINCT FROM ev.prev_hash)`,
      [w.workspaceId],
    );
    for (const r of broken.rows) problems.push(`entry ${r.entry_id}: event ${r.seq} not linked to its predecessor`);
    const orphans = await c.query(
      `SELECT count(*)::int AS n FROM entry_events ev WHERE ev.workspace_id = $1 AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.id = ev.entry_id)`,
      [w.workspaceId],
    );
    if (orphans.rows[0].n) problems.push(`${orphans.rows[0].n} events without their entry`);
    const created = await c.query(`SELECT count(*)::int AS n FROM entry_events WHERE workspace_id = $1 AND kind = 'ENTRY_CREATED'`, [
      w.workspaceId,
    ]);
    if (created.rows[0].n !== rows.length) problems.push(`${created.rows[0].n} ENTRY_CREATED events for ${rows.length} entries`);

    // names found or created by ingest exist once
    for (const table of ['parties', 'tags']) {
      const dup = await c.query(`SELECT lower(name) AS name FROM ${table} WHERE workspace_id = $1 GROUP BY 1 HAVING count(*) > 1`, [
        w.workspaceId,
      ]);
      for (const r of dup.rows) problems.push(`${table}: "${r.name}" exists more than once`);
    }

    // every acknowledged write is there, under the id it was acknowledged with
    const ackedEntries = ledgers.flatMap((l) => l.ackedEntries());
    let ackedEntriesFound = 0;
    for (const e of ackedEntries) {
      const r = byId.get(e.ackId!);
      if (r && r.reference === e.key) ackedEntriesFound++;
      else problems.push(`acknowledged entry ${e.ackId} (${e.key}) is missing`);
    }
    const extToId = new Map(rows.filter((r) => r.external_id).map((r) => [r.external_id!, Number(r.id)]));
    const ackedItems = ledgers.flatMap((l) => l.ackedItems());
    let ackedItemsFound = 0;
    for (const item of ackedItems) {
      if (item.status === 'ERROR') problems.push(`item ${item.externalId} was acknowledged as ERROR`);
      else if (extToId.get(item.externalId) === item.entryId) ackedItemsFound++;
      else problems.push(`acknowledged item ${item.externalId} (entry ${item.entryId}) is missing`);
    }

    // figures: writes committed although the client never heard back, batches only partly present
    const ackedIds = new Set([...ackedEntries.map((e) => e.ackId!), ...ackedItems.map((i) => i.entryId!)]);
    let partialBatches = 0;
    for (const b of ledgers.flatMap((l) => l.batches)) {
      const present = b.body.entries.filter((i) => extToId.has(i.externalId)).length;
      if (present > 0 && present < b.body.entries.length) partialBatches++;
    }
    return {
      problems,
      figures: {
        ackedEntries: ackedEntries.length,
        ackedEntriesFound,
        ackedItems: ackedItems.length,
        ackedItemsFound,
        entriesInDb: rows.length,
        committedButUnacked: rows.filter((r) => !ackedIds.has(Number(r.id))).length,
        partialBatches,
      },
    };
  });
}

/** GET /entries/{id}/events/verify for every entry of the workspace (the service recomputes each chain). */
export async function verifyAllChains(
  api: Api,
  token: string,
  url: string,
  workspaceId: number,
): Promise<{ verified: number; invalid: number[] }> {
  const ids = await withClient(url, async (c) =>
    (await c.query<{ id: string }>('SELECT id FROM entries WHERE workspace_id = $1 ORDER BY id', [workspaceId])).rows.map((r) =>
      Number(r.id),
    ),
  );
  const invalid: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      const res = await api.get(`/entries/${id}/events/verify`, { token });
      if (res.status !== 200 || res.body.valid !== true) invalid.push(id);
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
  return { verified: ids.length, invalid };
}
