import { randomBytes } from 'node:crypto';
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
  await User.create({
    email,
    name: 'Administrator',
    passwordHash: await hashPassword(password),
    permissions: [...PERMISSIONS],
    isActive: true,
  });
  return { created: true, email, generatedPassword };
}
