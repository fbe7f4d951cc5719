import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { QueryTypes } from 'sequelize';
import { db } from '../../../server/db/database.js';
import { open, seal, sealJson, openJson, type Keyring } from '../../../server/lib/crypto.js';
import { runtime, setRuntime } from '../../../server/runtime.js';
import type { ConnectionRow } from '../../../server/domains/accounting/connections/connection-rows.js';
import { readCredentials, readWebhookSecret } from '../../../server/domains/accounting/connections/connection-secrets.js';
import { rotateConnectionSecrets } from '../../../server/domains/accounting/connections/key-rotation.js';
import { startServer, type Api } from '../../support/http.js';
import { accountingWorld, createConnection, type AccountingWorld } from '../../support/factories/index.js';
import { expectStatus } from '../helpers.js';

const run = promisify(execFile);
const key = (kid: string) => ({ kid, key: randomBytes(32) });
const spec = (keys: Keyring) => keys.map((k) => `${k.kid}:${k.key.toString('base64')}`).join(',');

let api: Api;
let w: AccountingWorld;

beforeAll(async () => {
  api = await startServer();
  w = await accountingWorld(api);
});

async function rows(): Promise<ConnectionRow[]> {
  return db().query<ConnectionRow>('SELECT * FROM accounting_connections ORDER BY created_at, id', { type: QueryTypes.SELECT });
}

describe('AES-256-GCM with key ids and additional authenticated data', () => {
  const k1 = key('k1');
  const k2 = key('k2');

  it('round-trips under the first key, with a fresh IV every time', () => {
    const a = seal('top secret', 'connection:1:credentials', [k1, k2]);
    const b = seal('top secret', 'connection:1:credentials', [k1, k2]);
    expect(a.kid).toBe('k1');
    expect(a.iv).toHaveLength(12);
    expect(a.tag).toHaveLength(16);
    expect(a.iv.equals(b.iv)).toBe(false);
    expect(a.ciphertext.equals(b.ciphertext)).toBe(false);
    expect(a.ciphertext.includes(Buffer.from('top secret'))).toBe(false);
    expect(open(a, 'connection:1:credentials', [k2, k1])).toBe('top secret');
    expect(openJson(sealJson({ token: 'x' }, 'aad', [k1]), 'aad', [k1])).toEqual({ token: 'x' });
  });

  it('does not open with another AAD (another row or column), a changed byte, or an unknown key id', () => {
    const s = seal('top secret', 'connection:1:credentials', [k1]);
    expect(() => open(s, 'connection:2:credentials', [k1])).toThrow();
    expect(() => open(s, 'connection:1:webhookSecret', [k1])).toThrow();
    const flipped = Buffer.from(s.ciphertext);
    flipped[0] ^= 1;
    expect(() => open({ ...s, ciphertext: flipped }, 'connection:1:credentials', [k1])).toThrow();
    expect(() => open({ ...s, tag: randomBytes(16) }, 'connection:1:credentials', [k1])).toThrow();
    expect(() => open(s, 'connection:1:credentials', [k2])).toThrow(/no key with id "k1"/);
    expect(() => open({ ...s, kid: 'k2' }, 'connection:1:credentials', [k1, k2])).toThrow();
  });

  it('binds a stored ciphertext to its row: copied onto another connection it no longer decrypts', async () => {
    const a = await createConnection(w, { name: 'A', credentials: { accessToken: 'token-of-a' } });
    const b = await createConnection(w, { name: 'B', credentials: { accessToken: 'token-of-b' } });
    await db().query(
      `UPDATE accounting_connections b SET credentials_ciphertext = a.credentials_ciphertext, credentials_iv = a.credentials_iv,
              credentials_tag = a.credentials_tag, credentials_kid = a.credentials_kid
         FROM accounting_connections a WHERE a.workspace_id = :ws AND a.id = :a AND b.workspace_id = a.workspace_id AND b.id = :b`,
      { replacements: { ws: w.workspaceId, a: a.id, b: b.id } },
    );
    const [rowA, rowB] = (await rows()).filter((r) => r.id === a.id || r.id === b.id).sort((x) => (x.id === a.id ? -1 : 1));
    expect(readCredentials(rowA)).toEqual({ accessToken: 'token-of-a' });
    expect(() => readCredentials(rowB)).toThrow();
    // rotation would (rightly) refuse a row that does not decrypt: remove the forged one
    await db().query('DELETE FROM accounting_connections WHERE workspace_id = :ws AND id = :b', {
      replacements: { ws: w.workspaceId, b: b.id },
    });
  });
});

describe('key rotation', () => {
  it('re-encrypts every secret under the first key: encrypted under k1, rotated with "k2,k1", every row has k2 and decrypts', async () => {
    const k1 = runtime().secrets.credentialsKeys[0];
    const k2 = key('k2');
    const ws = await accountingWorld(api);
    const plain = new Map<string, { credentials: Record<string, unknown>; webhookSecret: string | null }>();
    for (let i = 0; i < 4; i++) {
      const credentials = { accessToken: `access-${i}`, refreshToken: `refresh-${i}` };
      const webhookSecret = i % 2 === 0 ? `hook-${i}` : null;
      const c = await createConnection(ws, { name: `C${i}`, credentials, ...(webhookSecret ? { config: { webhookSecret } } : {}) });
      plain.set(c.id, { credentials, webhookSecret });
    }
    const before = await rows();
    expect(before.every((r) => r.credentials_kid === k1.kid)).toBe(true);

    const result = await rotateConnectionSecrets([k2, k1]);
    expect(result).toEqual({ connections: before.length, reencrypted: before.length });

    const after = await rows();
    for (const row of after) {
      expect(row.credentials_kid).toBe('k2');
      if (row.webhook_secret_ciphertext) expect(row.webhook_secret_kid).toBe('k2');
      else expect(row.webhook_secret_kid).toBeNull();
      expect(() => readCredentials(row, [k2])).not.toThrow(); // the new key alone opens every row
      expect(() => readCredentials(row, [k1])).toThrow();
      const expected = plain.get(row.id);
      if (expected) {
        expect(readCredentials(row, [k2])).toEqual(expected.credentials);
        expect(readWebhookSecret(row, [k2])).toBe(expected.webhookSecret);
      }
    }
    expect(await rotateConnectionSecrets([k2, k1])).toEqual({ connections: before.length, reencrypted: 0 });

    // the service, now configured "k2,k1", keeps working: new rows are sealed under k2
    setRuntime({ ...runtime(), secrets: { ...runtime().secrets, credentialsKeys: [k2, k1] } });
    const fresh = await createConnection(ws, { name: 'after rotation', credentials: { accessToken: 'new' } });
    const [row] = (await rows()).filter((r) => r.id === fresh.id);
    expect(row.credentials_kid).toBe('k2');
    expect(readCredentials(row)).toEqual({ accessToken: 'new' });
    expectStatus(await api.get(`/accounting/connections/${fresh.id}`, { token: ws.token }), 200);
  });

  it('refuses (and changes nothing) when a stored secret names a key that is not in the list', async () => {
    const before = await rows();
    await expect(rotateConnectionSecrets([key('k9')])).rejects.toThrow(/no key with id/);
    const after = await rows();
    expect(after.map((r) => [r.id, r.credentials_kid, r.credentials_ciphertext.toString('hex')])).toEqual(
      before.map((r) => [r.id, r.credentials_kid, r.credentials_ciphertext.toString('hex')]),
    );
  });

  it('npm run rotate-keys: the script re-encrypts under the first key of CREDENTIALS_KEYS and prints only counts', async () => {
    const current = runtime().secrets.credentialsKeys; // [k2, k1] after the test above
    const k3 = key('k3');
    const env = {
      ...process.env,
      DATABASE_URL: runtime().config.DATABASE_URL!,
      JWT_SECRET: randomBytes(32).toString('hex'),
      CREDENTIALS_KEYS: spec([k3, ...current]),
      LOG_LEVEL: 'silent',
    };
    const total = (await rows()).length;
    const root = path.resolve(import.meta.dirname, '..', '..', '..');
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/rotate-keys.ts'], { cwd: root, env, timeout: 60_000 });
    expect(JSON.parse(stdout)).toEqual({
      connections: total,
      reencrypted: total,
      storedResponses: 0,
      storedResponsesReencrypted: 0,
      webhookEndpoints: 0,
      webhookReencrypted: 0,
    });
    for (const k of [k3, ...current]) expect(stdout).not.toContain(k.key.toString('base64'));
    for (const row of await rows()) {
      expect(row.credentials_kid).toBe('k3');
      expect(() => readCredentials(row, [k3])).not.toThrow();
    }
    const failed = run(process.execPath, ['--import', 'tsx', 'scripts/rotate-keys.ts'], {
      cwd: root,
      env: { ...env, CREDENTIALS_KEYS: spec([key('k4')]) },
      timeout: 60_000,
    });
    await expect(failed).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('no key with id "k3"') });
    expect((await rows()).every((r) => r.credentials_kid === 'k3')).toBe(true);
    setRuntime({ ...runtime(), secrets: { ...runtime().secrets, credentialsKeys: [k3, ...current] } });
  }, 120_000);
});
