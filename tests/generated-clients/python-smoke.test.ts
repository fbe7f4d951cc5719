import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { QueryTypes } from 'sequelize';
import { describe, expect, it } from 'vitest';
import { db } from '../../server/db/database.js';
import { buildUser } from '../support/factories/index.js';
import { startServer } from '../support/http.js';

const run = promisify(execFile);

/** scripts/python_smoke.py (standard library only) walks the documented flow against the real server. */
describe('Python smoke script', () => {
  it('walks login → workspace → project → entry → list → reports from openapi.json and exits 0', async () => {
    const api = await startServer();
    const user = await buildUser();
    const env = { ...process.env, BASE_URL: api.baseUrl, EMAIL: user.email, PASSWORD: user.password };
    // async on purpose: the server it calls runs in this process
    const { stdout } = await run('python3', ['scripts/python_smoke.py'], { env, timeout: 60_000 });

    for (const operationId of ['login', 'createWorkspace', 'createProject', 'createEntry', 'listEntries', 'getSummaryReport']) {
      expect(stdout).toMatch(new RegExp(`ok +[A-Z]+ +/\\S* +${operationId} -> 200`));
    }
    expect(stdout).toMatch(/createEntry -> 400/);
    expect(stdout.trim().split('\n').at(-1)).toBe('python smoke passed');

    const rows = await db().query<{ name: string; amount_cents: number; entry_count: number }>(
      `SELECT w.name, e.amount_cents, count(*) OVER () AS entry_count
         FROM workspaces w JOIN entries e ON e.workspace_id = w.id
         JOIN workspace_members m ON m.workspace_id = w.id
        WHERE m.user_id = :userId`,
      { replacements: { userId: user.id }, type: QueryTypes.SELECT },
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ amount_cents: 1999 });
    expect(rows[0]!.name).toMatch(/^Python smoke \d{14}$/);
  });

  it('exits 1 and names the failed step when the service refuses it', async () => {
    const api = await startServer();
    const user = await buildUser();
    const env = { ...process.env, BASE_URL: api.baseUrl, EMAIL: user.email, PASSWORD: 'not-the-password' };
    const failure = (await run('python3', ['scripts/python_smoke.py'], { env, timeout: 60_000 }).catch((e: unknown) => e)) as {
      code?: number;
      stderr?: string;
    };
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain('python smoke FAILED: POST /auth/login: expected 200, got 401');
  });
});
