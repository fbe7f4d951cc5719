import { z } from 'zod/v4';
import { PERMISSIONS } from '../permissions.js';
import { EMAIL_MAX, EmailValue, IntIdValue, NAME_MAX, Text, Uuid } from './common.js';

export const PermissionName = z.enum(PERMISSIONS);
/** A user's permissions as stored (the users contract accepts at most this many). */
export const MAX_USER_PERMISSIONS = 50;
export const PERMISSION_NAME_MAX = 100;
/** A permission as stored (`area.action`). */
export const PermissionValue = z.string().max(PERMISSION_NAME_MAX).meta({ pattern: '^[a-z]+\\.[a-z]+$' });

export const LoginInput = z.object({ email: z.string().min(1).max(EMAIL_MAX), password: z.string().min(1).max(1000) }).strict();

export const AuthUser = z.object({
  id: Uuid,
  email: EmailValue,
  name: Text(NAME_MAX),
  permissions: z.array(PermissionValue).max(MAX_USER_PERMISSIONS),
});

export const TokenResponse = z.object({
  // documented bound: two uuids, two timestamps, JWT_ISSUER and JWT_AUDIENCE (<= 200 each), base64url
  access_token: z
    .string()
    .meta({ maxLength: 2048, pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$' })
    .describe('HS256 JWT (claims sub, sid, iat, exp, iss, aud)'),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().min(1).max(86_400).describe('seconds (900)'),
  user: AuthUser,
});

export const Membership = z.object({
  workspaceId: IntIdValue,
  role: z.enum(['WORKSPACE', 'PROJECT']),
  projectIds: z.array(IntIdValue).describe('every project the membership reaches (not paged)'),
});

export const Me = AuthUser.extend({ isActive: z.boolean(), memberships: z.array(Membership) });

export type LoginInput = z.infer<typeof LoginInput>;
export type TokenResponse = z.infer<typeof TokenResponse>;
export type Me = z.infer<typeof Me>;
