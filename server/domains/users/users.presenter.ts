import type { User } from '../../db/models/index.js';
import type { UserObject } from '../../../shared/contracts/users.js';

/** The allow-list of user fields a response may carry (never the password hash). */
export function presentUser(user: User): UserObject {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    permissions: [...user.permissions].sort(),
    isActive: user.isActive,
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
  };
}
