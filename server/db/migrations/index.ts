import type { Migration } from './types.js';
import { m0001 } from './0001-foundation.js';
import { m0002 } from './0002-entries.js';
import { m0003 } from './0003-documents.js';
import { m0004 } from './0004-accounting.js';
import { m0005 } from './0005-integrations.js';
import { m0006 } from './0006-report-indexes.js';
import { m0007 } from './0007-sync.js';
import { m0008 } from './0008-auth-change-notify.js';
import { m0009 } from './0009-idempotency-work-committed.js';
import { m0010 } from './0010-entries-change-notify.js';
import { m0011 } from './0011-entries-redundant-workspace-fk.js';
import { m0012 } from './0012-ledger-core.js';
import { m0013 } from './0013-idempotency-encryption.js';
import { m0014 } from './0014-banking.js';
import { m0015 } from './0015-webhooks.js';
import { m0016 } from './0016-rules.js';
import { m0017 } from './0017-fx.js';
import { m0018 } from './0018-banking-speed.js';
import { m0019 } from './0019-create-path.js';
import { m0020 } from './0020-search-pending-list.js';
import { m0021 } from './0021-tag-rank-plpgsql.js';
import { m0022 } from './0022-deliveries-wake-in-process.js';
import { m0023 } from './0023-closed-period-freeze.js';
import { m0024 } from './0024-bank-match-balance.js';
import { m0031 } from './0031-idempotency-access-checks.js';
import { m0032 } from './0032-api-keys.js';
import { m0040 } from './0040-document-extraction.js';
import { m0041 } from './0041-bank-match-enforce-plan.js';
import { m0042 } from './0042-bank-candidate-base-amount.js';
import { m0043 } from './0043-bank-match-check-once.js';
import { m0044 } from './0044-bank-match-statement-check.js';
import { m0045 } from './0045-books.js';
import { m0046 } from './0046-recurring-budgets.js';
import { m0047 } from './0047-books-day-balances.js';
import { m0048 } from './0048-citus-routable-books.js';
import { m0049 } from './0049-citus.js';
import { m0050 } from './0050-citus-settlement-day.js';
import { m0051 } from './0051-citus-bank-match-check.js';

/** Every migration, in name order (umzug runs them in this order). Never edit a landed one. */
export const migrations: Migration[] = [
  m0001,
  m0002,
  m0003,
  m0004,
  m0005,
  m0006,
  m0007,
  m0008,
  m0009,
  m0010,
  m0011,
  m0012,
  m0013,
  m0014,
  m0015,
  m0016,
  m0017,
  m0018,
  m0019,
  m0020,
  m0021,
  m0022,
  m0023,
  m0024,
  m0031,
  m0032,
  m0040,
  m0041,
  m0042,
  m0043,
  m0044,
  m0045,
  m0046,
  m0047,
  m0048,
  m0049,
  m0050,
  m0051,
];

const names = migrations.map((m) => m.name);
if (names.some((name, i) => i > 0 && name <= names[i - 1])) {
  throw new Error(`migrations are out of order: ${names.join(', ')}`);
}
