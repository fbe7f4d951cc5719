import pg from 'pg';
import { Umzug, type RunnableMigration } from 'umzug';
import type { Sequelize } from 'sequelize-typescript';
import { migrations } from './migrations/index.js';

export type MigrationContext = Sequelize;

const LOCK_KEY = 720_431_977; // advisory lock so that several instances migrate one at a time

export function migrator(sequelize: Sequelize) {
  const list: RunnableMigration<MigrationContext>[] = migrations.map((m) => ({
    name: m.name,
    up: ({ context }) => m.up(context),
    down: ({ context }) => m.down(context),
  }));
  return new Umzug<MigrationContext>({
    migrations: list,
    context: sequelize,
    storage: {
      async executed({ context }) {
        await context.query(
          'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, run_at timestamptz NOT NULL DEFAULT now())',
        );
        const [rows] = await context.query('SELECT name FROM schema_migrations ORDER BY name');
        return (rows as { name: string }[]).map((r) => r.name);
      },
      async logMigration({ name, context }) {
        await context.query('INSERT INTO schema_migrations (name) VALUES (:name)', { replacements: { name } });
      },
      async unlogMigration({ name, context }) {
        await context.query('DELETE FROM schema_migrations WHERE name = :name', { replacements: { name } });
      },
    },
    logger: undefined,
  });
}

/** Runs pending migrations under an advisory lock held on a connection of its own. */
export async function migrateUp(sequelize: Sequelize): Promise<void> {
  const c = sequelize.config;
  const lock = new pg.Client({
    host: c.host,
    port: Number(c.port),
    user: c.username,
    password: c.password ?? undefined,
    database: c.database,
  });
  // (its own client: the pool may be a single connection, which the migrations need)
  await lock.connect();
  try {
    await lock.query(`SELECT pg_advisory_lock(${LOCK_KEY})`);
    await migrator(sequelize).up();
  } finally {
    await lock.end();
  }
}

export async function pendingMigrations(sequelize: Sequelize): Promise<string[]> {
  return (await migrator(sequelize).pending()).map((m) => m.name);
}
