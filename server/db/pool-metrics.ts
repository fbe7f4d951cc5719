import { Gauge, type Registry } from 'prom-client';
import { db } from './database.js';

type PoolLike = { size: number; available: number; using: number; waiting: number; maxSize: number };

const STATES = ['size', 'available', 'using', 'waiting'] as const;

/** Sequelize's pool, or its read and write pools when replication is configured. */
function pools(): [name: string, pool: PoolLike][] {
  let pool: unknown;
  try {
    pool = (db().connectionManager as unknown as { pool?: unknown }).pool;
  } catch {
    return [];
  }
  const isPool = (p: unknown): p is PoolLike => typeof p === 'object' && p !== null && typeof (p as PoolLike).size === 'number';
  if (isPool(pool)) return [['default', pool]];
  const split = pool as { read?: unknown; write?: unknown } | undefined;
  return (['read', 'write'] as const).flatMap((name) => (isPool(split?.[name]) ? [[name, split[name]] as [string, PoolLike]] : []));
}

/** `db_pool_connections{pool,state}` and `db_pool_max_connections{pool}`, read at each scrape (once per registry). */
export function registerPoolMetrics(registry: Registry): void {
  if (registry.getSingleMetric('db_pool_connections')) return;
  new Gauge({
    name: 'db_pool_connections',
    help: 'Database pool connections by state.',
    labelNames: ['pool', 'state'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [pool, p] of pools()) for (const state of STATES) this.set({ pool, state }, p[state]);
    },
  });
  new Gauge({
    name: 'db_pool_max_connections',
    help: 'Upper bound of the database pool.',
    labelNames: ['pool'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [pool, p] of pools()) this.set({ pool }, p.maxSize);
    },
  });
}
