import { z } from 'zod/v4';
import { PERMISSIONS } from '../permissions.js';
import { Uuid } from './common.js';

export const PermissionName = z.enum(PERMISSIONS);

export const LoginInput = z.object({ email: z.string().min(1).max(320), password: z.string().min(1).max(1000) }).strict();

export const AuthUser = z.object({
  id: Uuid,
  email: z.string(),
  name: z.string(),
  permissions: z.array(z.string()),
});

export const TokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  user: AuthUser,
});

export const Membership = z.object({
  workspaceId: z.number().int(),
  role: z.enum(['WORKSPACE', 'PROJECT']),
  projectIds: z.array(z.number().int()),
});

export const Me = AuthUser.extend({ isActive: z.boolean(), memberships: z.array(Membership) });

export type LoginInput = z.infer<typeof LoginInput>;
export type TokenResponse = z.infer<typeof TokenResponse>;
export type Me = z.infer<typeof Me>;
