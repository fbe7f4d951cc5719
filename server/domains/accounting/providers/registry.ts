import type { ConnectionRow } from '../connections/connection-rows.js';
import { readCredentials } from '../connections/connection-secrets.js';
import { GenericHttpProvider } from './generic/generic-provider.js';
import { ManualProvider } from './manual-provider.js';
import type { AccountingProvider } from './provider.js';
import { ProviderError } from './provider-error.js';
import { QuickBooksProvider } from './quickbooks/quickbooks-provider.js';

/** The adapter of a connection's provider type: MANUAL, QUICKBOOKS, or the generic HTTP adapter for any custom type. */
export function providerFor(connection: ConnectionRow): AccountingProvider {
  if (connection.provider_type === 'MANUAL') return new ManualProvider();
  const credentials = readCredentials(connection);
  if (connection.provider_type === 'QUICKBOOKS') {
    if (typeof credentials.realmId !== 'string' || !credentials.realmId) {
      throw new ProviderError('QUICKBOOKS credentials need realmId', 'CONFIGURATION');
    }
    return new QuickBooksProvider(connection, credentials.realmId);
  }
  return new GenericHttpProvider(connection, credentials);
}
