import { sql, type Migration } from './types.js';

/**
 * Recurring entries and budgets (CONTRACT §25). Every table carries `workspace_id` (its distribution key later).
 *
 * - `recurring_entries`: the template of an entry, its RRULE and window; `next_occurrence` is the next date the
 *   scheduler has to make (NULL when none is left), kept by whoever makes an occurrence.
 * - `recurring_occurrences`: one row per occurrence made (CREATED, with its entry) or skipped (with the reason). Its
 *   primary key (recurring_entry_id, occurrence_date) is what makes an occurrence happen at most once, whatever
 *   instances, restarts or races; the entry carries the pair too, unique again.
 * - `budgets`, `budget_lines`: the plan per period; `budget_exceeded`: one row per line and period whose
 *   `budget.exceeded` event was published (its key makes "once" hold under races).
 * - rules accept the trigger RECURRING.
 */
export const m0046: Migration = {
  name: '0046-recurring-budgets',
  up: sql(`
    CREATE TABLE recurring_entries (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      workspace_id integer NOT NULL REFERENCES workspaces(id),
      project_id integer NOT NULL,
      template jsonb NOT NULL CHECK (jsonb_typeof(template) = 'object'),
      rrule text NOT NULL CHECK (length(rrule) BETWEEN 1 AND 500),
      start_date date NOT NULL,
      end_date date CHECK (end_date >= start_date),
      is_active boolean NOT NULL DEFAULT true,
      next_occurrence date,
      created_by uuid REFERENCES users(id),
      api_key_id uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (id, workspace_id),
      FOREIGN KEY (project_id, workspace_id) REFERENCES projects(id, workspace_id)
    );
    CREATE INDEX recurring_entries_workspace_idx ON recurring_entries (workspace_id, created_at, id);
    CREATE INDEX recurring_entries_due_idx ON recurring_entries (next_occurrence, id) WHERE is_active AND next_occurrence IS NOT NULL;

    CREATE TABLE recurring_occurrences (
      recurring_entry_id uuid NOT NULL,
      workspace_id integer NOT NULL,
      occurrence_date date NOT NULL,
      status text NOT NULL CHECK (status IN ('CREATED', 'SKIPPED')),
      entry_id bigint,
      reason text CHECK (length(reason) <= 2000),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (recurring_entry_id, occurrence_date),
      FOREIGN KEY (recurring_entry_id, workspace_id) REFERENCES recurring_entries(id, workspace_id),
      CHECK ((status = 'CREATED') = (entry_id IS NOT NULL))
    );

    ALTER TABLE entries ADD COLUMN recurring_entry_id uuid, ADD COLUMN occurrence_date date;
    ALTER TABLE entries ADD CONSTRAINT entries_recurring_fkey
      FOREIGN KEY (recurring_entry_id, workspace_id) REFERENCES recurring_entries(id, workspace_id);
    ALTER TABLE entries ADD CONSTRAINT entries_occurrence_pair_check
      CHECK ((recurring_entry_id IS NULL) = (occurrence_date IS NULL));
    CREATE UNIQUE INDEX entries_recurring_occurrence_key ON entries (recurring_entry_id, occurrence_date)
      WHERE recurring_entry_id IS NOT NULL;

    CREATE TABLE budgets (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      workspace_id integer NOT NULL REFERENCES workspaces(id),
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      period text NOT NULL CHECK (period IN ('MONTH', 'QUARTER', 'YEAR')),
      start_date date NOT NULL,
      periods integer NOT NULL CHECK (periods BETWEEN 1 AND 36),
      currency text NOT NULL,
      created_by uuid REFERENCES users(id),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (id, workspace_id)
    );
    CREATE INDEX budgets_workspace_idx ON budgets (workspace_id, created_at, id);

    CREATE TABLE budget_lines (
      budget_id uuid NOT NULL,
      workspace_id integer NOT NULL,
      line_index integer NOT NULL CHECK (line_index >= 0),
      category_id uuid,
      project_id integer,
      entry_type text NOT NULL CHECK (entry_type IN ('INCOME', 'EXPENSE')),
      amount_cents bigint NOT NULL CHECK (amount_cents >= 0),
      PRIMARY KEY (budget_id, line_index),
      FOREIGN KEY (budget_id, workspace_id) REFERENCES budgets(id, workspace_id) ON DELETE CASCADE,
      FOREIGN KEY (category_id, workspace_id) REFERENCES accounting_categories(id, workspace_id),
      FOREIGN KEY (project_id, workspace_id) REFERENCES projects(id, workspace_id)
    );
    CREATE INDEX budget_lines_workspace_idx ON budget_lines (workspace_id, entry_type);

    CREATE TABLE budget_exceeded (
      budget_id uuid NOT NULL,
      workspace_id integer NOT NULL,
      line_index integer NOT NULL,
      period_start date NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (budget_id, line_index, period_start),
      FOREIGN KEY (budget_id, workspace_id) REFERENCES budgets(id, workspace_id) ON DELETE CASCADE
    );

    ALTER TABLE rules DROP CONSTRAINT rules_triggers_check;
    ALTER TABLE rules ADD CONSTRAINT rules_triggers_check
      CHECK (cardinality(triggers) >= 1 AND triggers <@ '{CREATE,INGEST,BANK,DOCUMENT,RECURRING}'::text[]);
  `),
  down: sql(`
    DELETE FROM rules WHERE 'RECURRING' = ANY (triggers) AND cardinality(triggers) = 1;
    UPDATE rules SET triggers = array_remove(triggers, 'RECURRING') WHERE 'RECURRING' = ANY (triggers);
    ALTER TABLE rules DROP CONSTRAINT rules_triggers_check;
    ALTER TABLE rules ADD CONSTRAINT rules_triggers_check
      CHECK (cardinality(triggers) >= 1 AND triggers <@ '{CREATE,INGEST,BANK,DOCUMENT}'::text[]);
    DROP TABLE budget_exceeded;
    DROP TABLE budget_lines;
    DROP TABLE budgets;
    DROP INDEX entries_recurring_occurrence_key;
    ALTER TABLE entries DROP CONSTRAINT entries_occurrence_pair_check, DROP CONSTRAINT entries_recurring_fkey;
    ALTER TABLE entries DROP COLUMN recurring_entry_id, DROP COLUMN occurrence_date;
    DROP TABLE recurring_occurrences;
    DROP TABLE recurring_entries;
  `),
};
