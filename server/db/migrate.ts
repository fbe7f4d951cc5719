import { Umzug, type RunnableMigration } from 'umzug';
import type { Sequelize } from 'sequelize-typescript';
import { migrations } from './migrations/index.js';
import { clientConfigOf } from './database.js';
import { withStartupLock } from './startup-lock.js';

export type MigrationContext = Sequelize;

/** the advisory lock key every release has migrated under, so that old and new instances also take turns */
const MIGRATIONS_LOCK = 720_431_977;

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

/** Runs pending migrations, one instance at a time (withStartupLock); resolves the names it applied. */
export async function migrateUp(sequelize: Sequelize): Promise<string[]> {
  return withStartupLock(clientConfigOf(sequelize), MIGRATIONS_LOCK, async () => (await migrator(sequelize).up()).map((m) => m.name));
}

export async function pendingMigrations(sequelize: Sequelize): Promise<string[]> {
  return (await migrator(sequelize).pending()).map((m) => m.name);
}
