import { transaction } from '../../../../db/database.js';
import { clock } from '../../../../lib/clock.js';
import { runtime } from '../../../../runtime.js';
import { loadConnection, lockConnection } from '../../connections/connection-rows.js';
import { readCredentials, storeCredentials, type ConnectionCredentials } from '../../connections/connection-secrets.js';
import { jsonOf, send } from '../http-client.js';
import { excerpt, ProviderError } from '../provider-error.js';
import { parseAnswer } from '../validate-response.js';
import { QbTokenAnswer } from './quickbooks-schemas.js';

/**
 * OAuth2 access tokens of a QUICKBOOKS connection (CONTRACT §9): refreshed at QUICKBOOKS_TOKEN_URL
 * before they expire (or when QuickBooks refuses one), the new tokens stored encrypted at once.
 *
 * A refresh holds the connection row lock (and re-reads the credentials under it), so parallel
 * callers refresh once and the others use the tokens it stored: QuickBooks rotates refresh
 * tokens, and a second refresh with the old one could fail. It commits on its own, whatever
 * happens to the push that needed it.
 */

export type QbCredentials = ConnectionCredentials & { realmId: string; accessToken: string; refreshToken: string; tokenExpiresAt?: string };

/** Refresh when the access token expires within this margin. */
export const REFRESH_MARGIN_MS = 5 * 60_000;

function credentialsOf(raw: ConnectionCredentials): QbCredentials {
  const { realmId, accessToken, refreshToken } = raw;
  if (typeof realmId !== 'string' || typeof accessToken !== 'string' || typeof refreshToken !== 'string') {
    throw new ProviderError('QUICKBOOKS credentials need realmId, accessToken and refreshToken', 'CONFIGURATION');
  }
  return raw as QbCredentials;
}

const expiresSoon = (c: QbCredentials) => {
  if (!c.tokenExpiresAt) return false; // unknown expiry: used until QuickBooks refuses it
  const at = Date.parse(c.tokenExpiresAt);
  return !Number.isFinite(at) || at - clock.now().getTime() < REFRESH_MARGIN_MS;
};

async function requestTokens(c: QbCredentials): Promise<QbCredentials> {
  const { clientId, clientSecret } = c;
  if (typeof clientId !== 'string' || typeof clientSecret !== 'string') {
    throw new ProviderError('QUICKBOOKS credentials need clientId and clientSecret to refresh the access token', 'CONFIGURATION');
  }
  const answer = await send(
    {
      method: 'POST',
      url: runtime().config.QUICKBOOKS_TOKEN_URL,
      headers: { Authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
      form: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: c.refreshToken }).toString(),
    },
    { guard: false, label: 'QuickBooks token endpoint' },
  );
  if (answer.status !== 200) {
    throw new ProviderError(`QuickBooks token refresh failed (${answer.status}): ${excerpt(answer.text, 200)}`, 'AUTH', answer.status);
  }
  const tokens = parseAnswer(QbTokenAnswer, jsonOf(answer, 'QuickBooks token endpoint'), 'QuickBooks token endpoint', 200);
  const now = clock.now().getTime();
  return {
    ...c,
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
    tokenExpiresAt: new Date(now + tokens.expires_in * 1000).toISOString(),
    ...(tokens.x_refresh_token_expires_in
      ? { refreshTokenExpiresAt: new Date(now + tokens.x_refresh_token_expires_in * 1000).toISOString() }
      : {}),
  };
}

/**
 * Refreshes under the connection lock unless someone else already did: `needed` says, from the
 * credentials as stored now, whether a refresh is still needed.
 */
async function refreshUnderLock(connectionId: string, needed: (stored: QbCredentials) => boolean): Promise<QbCredentials> {
  return transaction(async (tx) => {
    const row = await lockConnection(null, connectionId, tx);
    const stored = credentialsOf(readCredentials(row));
    if (!needed(stored)) return stored;
    const fresh = await requestTokens(stored);
    await storeCredentials(tx, connectionId, fresh);
    runtime().logger.info({ connectionId }, 'QuickBooks access token refreshed');
    return fresh;
  });
}

/** Credentials with an access token that is valid for at least REFRESH_MARGIN_MS (refreshed when needed). */
export async function freshCredentials(connectionId: string): Promise<QbCredentials> {
  const current = credentialsOf(readCredentials(await loadConnection(null, connectionId)));
  if (!expiresSoon(current)) return current;
  return refreshUnderLock(connectionId, expiresSoon);
}

/** QuickBooks refused `rejectedToken` (401): refresh, unless another caller already replaced it. */
export const refreshAfterRejection = (connectionId: string, rejectedToken: string) =>
  refreshUnderLock(connectionId, (stored) => stored.accessToken === rejectedToken);
