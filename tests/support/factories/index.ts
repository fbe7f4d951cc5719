/**
 * The one factories module (DESIGN §8): every test gets its users, workspaces, entries, bank
 * accounts and statements, connections, rules, webhook endpoints, keys, documents and files from
 * here, one file per domain. Import this index, not the files behind it.
 */
export * from './users.js';
export * from './workspaces.js';
export * from './parties.js';
export * from './tags.js';
export * from './entries.js';
export * from './periods.js';
export * from './accounting.js';
export * from './auth.js';
export * from './banking.js';
export * from './documents.js';
export * from './fx.js';
export * from './integrations.js';
export * from './outbound-webhooks.js';
export * from './rules.js';
