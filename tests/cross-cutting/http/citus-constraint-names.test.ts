import { describe, expect, it } from 'vitest';
import { knownError, postgresErrorOf } from '../../../server/lib/errors.js';

/**
 * CONTRACT §24: Citus relays a worker's error without its constraint name (only SQLSTATE, message, detail,
 * hint and context). The errors the service tells apart by constraint are then known by their message, so a
 * cap or closed period caught by the database on a shard is the same 409 as on one server, not a 400.
 */
const relayed = (code: string, message: string) => ({ name: 'SequelizeDatabaseError', parent: { code, message } });

describe('a constraint named only in the message (an error relayed by Citus)', () => {
  it.each([
    ['23514', 'live REFUND entries of entry 31 sum to 1100, above its amount 1000', 'entry_caps'],
    ['23514', 'entry 7 is dated 2026-01-05 in the closed accounting period "January": its totals cannot move', 'entry_closed_period'],
    ['23514', 'journal transaction 12 is dated 2026-01-05 in the closed accounting period "January"', 'journal_closed_period'],
    ['23514', 'journal transaction 12: its debits (100) and credits (90) differ', 'journal_balanced'],
    ['23514', 'category 0b6f… is the account of a ledger role: it cannot be deactivated', 'ledger_role_active'],
    ['23514', 'bank match 5d1c…: its lines sum to -5677, its entries (INCOME +, EXPENSE −) to -5678', 'bank_match_balance'],
    [
      '23505',
      'duplicate key value violates unique constraint "entries_integration_external_id_key_102041"',
      'entries_integration_external_id_key',
    ],
    ['23505', 'duplicate key value violates unique constraint "tags_workspace_name_key"', 'tags_workspace_name_key'],
  ])('%s %s → %s', (code, message, constraint) => {
    expect(postgresErrorOf(relayed(code, message))).toMatchObject({ code, constraint });
  });

  it('a cap or a closed period relayed without its name is still the 409 of one server; an unknown check stays a 400', () => {
    expect(knownError(relayed('23514', 'live REFUND entries of entry 31 sum to 1100, above its amount 1000'))).toMatchObject({
      code: 'CONFLICT',
    });
    expect(
      knownError(relayed('23514', 'entry 7 is dated 2026-01-05 in the closed accounting period "Q1": its totals cannot move')),
    ).toMatchObject({
      code: 'CONFLICT',
    });
    expect(
      knownError(relayed('23514', 'new row for relation "entries" violates check constraint "entries_amount_positive"')),
    ).toMatchObject({
      code: 'BAD_REQUEST',
    });
    expect(postgresErrorOf(relayed('40P01', 'deadlock detected'))?.constraint).toBeUndefined();
  });

  it("a RAISE of the service's own relayed as XX000 (a row the coordinator copied to a shard) keeps its SQLSTATE; others stay XX000", () => {
    const closed = relayed('XX000', 'journal transaction 12 is dated 2026-01-05 in the closed accounting period "January"');
    expect(postgresErrorOf(closed)).toMatchObject({ code: '23514', constraint: 'journal_closed_period' });
    expect(
      knownError(relayed('XX000', 'journal transaction 12 is dated 2026-01-05 in the closed accounting period "January"')),
    ).toMatchObject({
      code: 'CONFLICT',
    });
    expect(postgresErrorOf(relayed('XX000', 'could not connect to the worker'))).toMatchObject({ code: 'XX000' });
  });
});
