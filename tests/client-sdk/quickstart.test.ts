import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../server/db/database.js';
import { buildUser } from '../support/factories/index.js';
import { startServer } from '../support/http.js';

const run = promisify(execFile);

/** client-sdk/examples/quickstart.ts, run as a newcomer would (tsx), against the real server. */
describe('SDK quick start example', () => {
  it('logs in, creates an entry, uploads a document and prints the summary report', async () => {
    const api = await startServer();
    const user = await buildUser();
    const env = { ...process.env, BASE_URL: api.baseUrl, EMAIL: user.email, PASSWORD: user.password };
    // async on purpose: the server answering the example runs in this process
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'client-sdk/examples/quickstart.ts'], { env, timeout: 60_000 });

    expect(stdout).toContain(`logged in as ${user.email}`);
    const entryId = Number(/created entry #(\d+)/.exec(stdout)?.[1]);
    expect(stdout).toContain('uploaded receipt.pdf: application/pdf');
    expect(stdout).toContain('downloaded receipt.pdf: sha256 matches');
    expect(stdout).toMatch(/summary report of workspace \d+/);
    expect(stdout).toMatch(/entries {2}1\n/);
    expect(stdout).toContain('expense  €42.50');

    const rows = await db().query<{ amount_cents: number; status: string; document_name: string }>(
      `SELECT e.amount_cents, d.status, d.document_name FROM entries e JOIN entry_documents d ON d.workspace_id = e.workspace_id AND d.entry_id = e.id WHERE e.id = :entryId`,
      { replacements: { entryId }, type: QueryTypes.SELECT },
    );
    expect(rows).toEqual([{ amount_cents: 4_250, status: 'UPLOADED', document_name: 'receipt.pdf' }]);
  });

  it('exits 1 with the ApiError when the password is wrong', async () => {
    const api = await startServer();
    const user = await buildUser();
    const env = { ...process.env, BASE_URL: api.baseUrl, EMAIL: user.email, PASSWORD: 'not-the-password' };
    const failure = await run(process.execPath, ['--import', 'tsx', 'client-sdk/examples/quickstart.ts'], { env, timeout: 60_000 }).catch(
      (e: { code?: number; stderr?: string }) => e,
    );
    expect(failure).toMatchObject({ code: 1 });
    expect((failure as { stderr: string }).stderr).toContain('failed: 401 UNAUTHORIZED');
  });
});
