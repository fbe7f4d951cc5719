import { sql, type Migration } from './types.js';

/**
 * The two bank-matching indexes of 0014 carry amount_base_cents too (issue 35: a normalised report within 1.25 of
 * its plain version). They are the narrowest indexes that hold the workspace, currency, type, date and amount of
 * every counted entry, so the plain summary and timeline read them; normalize=true had to read entries_report_idx,
 * twice as wide, only for amount_base_cents (1.4–1.6 × the time on 1,000,000 entries). With the column in both, a
 * report reads the same pages either way. No write gets dearer in kind: every change of amount_base_cents already
 * rewrote entries_report_idx (0017), so it was never a HOT update.
 */
const CREATE = (include: string) => `
    DROP INDEX entries_bank_candidate_idx;
    CREATE INDEX entries_bank_candidate_idx ON entries (workspace_id, base_currency, entry_type, amount_cents, entry_date)${include}
      WHERE entry_status IN ('PENDING', 'UNDER_REVIEW', 'COMPLETED');
    DROP INDEX entries_bank_window_idx;
    CREATE INDEX entries_bank_window_idx ON entries (workspace_id, base_currency, entry_type, entry_date, amount_cents)${include}
      WHERE entry_status IN ('PENDING', 'UNDER_REVIEW', 'COMPLETED');`;

export const m0042: Migration = {
  name: '0042-bank-candidate-base-amount',
  up: sql(CREATE(' INCLUDE (amount_base_cents)')),
  down: sql(CREATE('')),
};
