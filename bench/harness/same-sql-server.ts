/**
 * The same-SQL baseline's server (issue 53, see same-sql.ts): a bare `node:http` handler that, for every
 * request, replays a route's captured statements on a `pg` Pool in one transaction (BEGIN … COMMIT) and
 * answers a small JSON body. No framework, no validation, no authentication: what is left is the route's
 * SQL and the least a Node server does around it. Started by the bench as a child process (its CPU is
 * metered like the real server's):
 *
 *   node --import tsx bench/harness/same-sql-server.ts <plan.json>   (DATABASE_URL, PORT, POOL_MAX)
 *
 * The request's input is the last path segment when it is a number (the entry id of GET /entries/{id}).
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import pg from 'pg';
import { render, type RequestState, type SameSqlPlan } from './same-sql.js';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8')) as SameSqlPlan;
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_MAX ?? 10) });
const begin = plan.isolation ? `BEGIN ISOLATION LEVEL ${plan.isolation}` : 'BEGIN';

async function replay(input: string | undefined): Promise<Record<string, unknown> | undefined> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const state: RequestState = { results: [], input, made: new Map() };
    let answer: Record<string, unknown> | undefined;
    for (const s of plan.statements) {
      const values = s.values.map((v) => render(v, state));
      const { rows } = await client.query<Record<string, unknown>>(
        s.name ? { name: s.name, text: s.text, values } : { text: s.text, values },
      );
      state.results.push(rows[0]);
      if (!answer && rows[0]?.id !== undefined) answer = rows[0]; // the entry read or inserted
    }
    await client.query('COMMIT');
    return answer;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

let failures = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const input = /\/(\d+)(?:\?.*)?$/.exec(req.url ?? '')?.[1];
    replay(input).then(
      (row) => {
        // a small answer: the id of what was read or written
        const body = JSON.stringify({ ok: true, id: row?.id ?? null });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      },
      (err: Error) => {
        if (failures++ < 3) process.stderr.write(`same-sql replay failed: ${err.message}\n`);
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: false }));
      },
    );
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('listening\n'));
process.on('SIGTERM', () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});
