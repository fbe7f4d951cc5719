import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from './app-router.js';

/** The input of every procedure, e.g. `RouterInputs['entries']['create']`. */
export type RouterInputs = inferRouterInputs<AppRouter>;
/** The output of every procedure, e.g. `RouterOutputs['reports']['summary']`. */
export type RouterOutputs = inferRouterOutputs<AppRouter>;

export type Entry = RouterOutputs['entries']['create'];
export type EntryDetail = RouterOutputs['entries']['get'];
export type Document = RouterOutputs['documents']['get'];
export type DocumentType = RouterInputs['documents']['request']['documentType'];
export type SummaryReport = RouterOutputs['reports']['summary'];

/** Filters of the CSV export: those of `GET /entries` without paging. */
export type EntryExportFilters = Omit<RouterInputs['entries']['list'], 'limit' | 'offset'>;
/** Query of the PDF report: workspace, optional project, currency and date range. */
export type ReportQuery = RouterInputs['reports']['summary'];

export type { IngestItem, IngestItemResult, IngestResponse } from './contracts.js';
