import { ensureCitus, startCitusCluster } from '../cross-cutting/hard/support/citus.js';
import { runCleanups } from '../cross-cutting/hard/support/cleanup-registry.js';
import { withClient } from '../cross-cutting/hard/support/crash-checks.js';

/*
 * `TEST_CITUS=1 npm test`: the suites run against a Citus cluster (CONTRACT §24) instead of one
 * PostgreSQL: a coordinator and two workers on loopback (tests/cross-cutting/hard/support/citus.ts).
 * The template database is migrated once on the cluster (so its tenant tables are distributed), then
 * frozen; each test file clones it on every node under one name, which gives the file a cluster of its
 * own: Citus' metadata names nodes, not databases, and the coordinator reaches each worker's database
 * of the same name. Not part of CI: a run takes longer than the suite on one server.
 */

/** Superuser URLs of database `postgres` on the coordinator (first) and each worker. */
export type CitusNodes = string[];

export async function startCitusTemplate(template: string): Promise<{ nodes: CitusNodes; templateUrl: string; stop: () => Promise<void> }> {
  await ensureCitus();
  const cluster = await startCitusCluster(2);
  await cluster.addDatabase(template);
  const nodes = [cluster.coordinator, ...cluster.workers].map((n) => `postgres://postgres@127.0.0.1:${n.port}/postgres`);
  return { nodes, templateUrl: nodes[0].replace(/\/postgres$/, `/${template}`), stop: runCleanups };
}

/** No connection to the template stays or comes back (Citus' maintenance daemon holds one), so it can be cloned. */
export async function freezeTemplate(nodes: CitusNodes, template: string): Promise<void> {
  for (const url of nodes)
    await withClient(url, async (c) => {
      await c.query(`ALTER DATABASE ${template} ALLOW_CONNECTIONS false`);
      await c.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [template]);
    });
}

/** The file's database `name`, a clone of the template, on every node. */
export async function cloneOnEveryNode(nodes: CitusNodes, template: string, name: string): Promise<void> {
  for (const url of nodes)
    await withClient(url, async (c) => {
      for (let attempt = 0; ; attempt++) {
        try {
          await c.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
          return;
        } catch (err) {
          // 55006: another session (a daemon that was just starting) still has the template open
          if ((err as { code?: string }).code !== '55006' || attempt >= 50) throw err;
          await c.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, [template]);
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    });
}

export async function dropOnEveryNode(nodes: CitusNodes, name: string): Promise<void> {
  for (const url of nodes) await withClient(url, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}
