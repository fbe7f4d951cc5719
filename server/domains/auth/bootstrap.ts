import { randomBytes } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { db } from '../../db/database.js';
import { User } from '../../db/models/index.js';
import { PERMISSIONS } from '../../../shared/permissions.js';
import { hashPassword } from './passwords.js';

export type BootstrapResult = { created: false } | { created: true; email: string; generatedPassword?: string };

/** On an empty database, creates the first user holding every permission (CONTRACT §4). */
export async function bootstrapAdmin(opts: { email?: string; password?: string }): Promise<BootstrapResult> {
  if ((await User.count()) > 0) return { created: false };
  const email = (opts.email ?? 'admin@example.com').toLowerCase();
  const generatedPassword = opts.password ? undefined : randomBytes(12).toString('base64url');
  const password = opts.password ?? generatedPassword!;
  // several instances may start at once on an empty database: only one insert wins, quietly
  const rows = await db().query(
    `INSERT INTO users (email, name, password_hash, permissions)
     SELECT :email, 'Administrator', :hash, ARRAY[:permissions]::text[] WHERE NOT EXISTS (SELECT 1 FROM users)
     ON CONFLICT (email) DO NOTHING RETURNING id`,
    { replacements: { email, hash: await hashPassword(password), permissions: [...PERMISSIONS] }, type: QueryTypes.SELECT },
  );
  if (rows.length === 0) return { created: false };
  return { created: true, email, generatedPassword };
}
