import { transaction } from '../../db/database.js';
import { AppError, badRequest } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import type { ImportFxRatesResult } from '../../../shared/contracts/fx.js';
import { looksLikeXml, parseEcbXml, parseRateCsv, type FileIssue, type FileRate } from './rate-files.js';
import { baseCurrencyOf, upsertRates } from './rate-rows.js';

/** At most this many problems are listed in a refused import's issues (the body stays small). */
const ISSUES_SHOWN = 100;

/** Two rows for the same currency and day in one file: ambiguous, refused. */
function duplicateIssues(rates: FileRate[]): FileIssue[] {
  const first = new Map<string, number>();
  const issues: FileIssue[] = [];
  for (const r of rates) {
    const key = `${r.currency} ${r.rateDate}`;
    const seen = first.get(key);
    if (seen === undefined) first.set(key, r.line);
    else issues.push({ line: r.line, message: `a second rate for ${r.currency} on ${r.rateDate} (first on line ${seen})` });
  }
  return issues;
}

function refuse(issues: FileIssue[]): never {
  const sorted = [...issues].sort((a, b) => a.line - b.line);
  const shown = sorted.slice(0, ISSUES_SHOWN).map((i) => ({ path: ['file', `line ${i.line}`], line: i.line, message: i.message }));
  const more = sorted.length > ISSUES_SHOWN ? ` (the first ${ISSUES_SHOWN} are listed)` : '';
  throw new AppError('BAD_REQUEST', `The file has ${sorted.length} invalid line(s)${more}; nothing was imported`, { issues: shown });
}

/**
 * POST /fx-rates/import (CONTRACT §17): a CSV `date,currency,rate` or an ECB eurofxref XML
 * file. All or nothing: every line is checked first and any problem refuses the whole file
 * (400, each problem with its line number in `issues`); then every rate is upserted in one
 * statement, in one transaction. ECB rates are per EUR: only an EUR workspace takes them.
 */
export async function importRates(actor: Actor, workspaceId: number, bytes: Buffer): Promise<ImportFxRatesResult> {
  scope.requireWorkspaceMember(actor, workspaceId);
  const text = bytes.toString('utf8');
  if (text.includes('\uFFFD')) throw badRequest('The file is not UTF-8 text');
  const parsed = looksLikeXml(text) ? parseEcbXml(text) : parseRateCsv(text);
  return transaction(async (tx) => {
    const base = await baseCurrencyOf(tx, workspaceId);
    if (parsed.format === 'ECB_XML' && base !== 'EUR') {
      throw badRequest(`ECB rates are quoted per EUR; this workspace's base currency is ${base}, so only EUR workspaces can import them`);
    }
    const issues = [
      ...parsed.issues,
      ...parsed.rates
        .filter((r) => r.currency === base)
        .map((r) => ({ line: r.line, message: `${base} is the base currency; its rate is always "1"` })),
      ...duplicateIssues(parsed.rates),
    ];
    if (issues.length) refuse(issues);
    if (parsed.rates.length === 0) throw badRequest('The file holds no rates');
    const written = await upsertRates(tx, workspaceId, parsed.rates, 'IMPORT');
    const imported = written.filter((r) => r.inserted).length;
    return { imported, updated: written.length - imported };
  });
}
