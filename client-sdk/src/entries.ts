import type { TRPCClient } from '@trpc/client';
import type { AppRouter } from './app-router.js';
import type { RouterInputs, RouterOutputs } from './types.js';

/** Filters and sort of `GET /entries` for walking every page: no offset, no cursor (the iterator keeps it). */
export type EntryListQuery = Omit<RouterInputs['entries']['list'], 'offset' | 'cursor'>;
export type EntryListPage = RouterOutputs['entries']['list'];
export type ListedEntry = EntryListPage['items'][number];

export interface EntryHelpers {
  /**
   * Every page of a list, first to last, following `nextCursor` (CONTRACT §18): each page comes
   * as fast as the first whatever its depth, and entries written meanwhile never make a page skip
   * or repeat an entry that stayed in place. `limit` is the page size (default 20, max 100).
   */
  pages(query: EntryListQuery, options?: { signal?: AbortSignal }): AsyncGenerator<EntryListPage, void, undefined>;
  /** Every entry of a list, in its order: `for await (const entry of client.entries.listAll({ workspaceId }))`. */
  listAll(query: EntryListQuery, options?: { signal?: AbortSignal }): AsyncGenerator<ListedEntry, void, undefined>;
}

export function createEntryHelpers(trpc: TRPCClient<AppRouter>): EntryHelpers {
  async function* pages(query: EntryListQuery, options: { signal?: AbortSignal } = {}) {
    let cursor: string | undefined;
    for (;;) {
      const page: EntryListPage = await trpc.entries.list.query(cursor === undefined ? query : { ...query, cursor }, {
        signal: options.signal,
      });
      yield page;
      if (page.nextCursor === null) return;
      cursor = page.nextCursor;
    }
  }
  async function* listAll(query: EntryListQuery, options: { signal?: AbortSignal } = {}) {
    for await (const page of pages(query, options)) yield* page.items;
  }
  return { pages, listAll };
}
