import { z } from 'zod/v4';
import { PERMISSIONS, type Permission } from '../permissions.js';
import { PermissionName, PermissionValue } from './auth.js';
import { IntId, IntIdValue, NonBlankText, Text, Timestamp, Uuid, UuidValue } from './common.js';

/** CONTRACT §19: what a key may never be given (400). */
export const NON_GRANTABLE_TO_KEYS: readonly Permission[] = PERMISSIONS.filter(
  (p) => p.startsWith('user.') || p === 'workspace.create' || p === 'apikey.manage',
);

export const MAX_API_KEY_PROJECTS = 1000;
const PREFIX_PATTERN = '^fes_app_[A-Za-z0-9]{8}$';
const KEY_PATTERN = '^fes_app_[A-Za-z0-9]{8}_[A-Za-z0-9]{43}$';

export const ApiKeyObject = z.object({
  id: Uuid,
  workspaceId: IntIdValue,
  name: Text(100),
  prefix: z.string().max(20).meta({ pattern: PREFIX_PATTERN }).describe('The visible start of the key, e.g. fes_app_Ab3dE5fG'),
  permissions: z.array(PermissionValue).max(PERMISSIONS.length),
  projectIds: z.array(IntIdValue).max(MAX_API_KEY_PROJECTS).describe('Projects the key reaches; empty = the whole workspace'),
  createdBy: UuidValue.nullable(),
  createdAt: Timestamp,
  expiresAt: Timestamp.nullable(),
  lastUsedAt: Timestamp.nullable().describe('Kept to the minute'),
  revokedAt: Timestamp.nullable(),
});

export const ApiKeyWithSecret = ApiKeyObject.extend({
  apiKey: z
    .string()
    .max(60)
    .meta({ pattern: KEY_PATTERN })
    .describe('The secret, shown only in this response: send it as Authorization: Bearer <apiKey>'),
});

// the document lists only what a key may hold; the refinement keeps the service's own message for the others
const GrantablePermission = PermissionName.refine((p) => !NON_GRANTABLE_TO_KEYS.includes(p), {
  message: `cannot be given to an API key (${NON_GRANTABLE_TO_KEYS.join(', ')})`,
}).meta({ enum: PERMISSIONS.filter((p) => !NON_GRANTABLE_TO_KEYS.includes(p)) });

export const CreateApiKeyInput = z
  .object({
    workspaceId: IntId,
    name: NonBlankText(100),
    permissions: z.array(GrantablePermission).max(PERMISSIONS.length),
    projectIds: z.array(IntId).max(MAX_API_KEY_PROJECTS).optional(),
    expiresAt: z.iso.datetime({ offset: true }).meta({ maxLength: 40 }).optional().describe('Must lie in the future'),
  })
  .strict();

export const RotateApiKeyInput = z
  .object({
    id: Uuid,
    graceSeconds: z.number().int().min(0).max(86_400).default(0).describe('How long the old secret keeps working'),
  })
  .strict();

export type ApiKeyObject = z.infer<typeof ApiKeyObject>;
export type ApiKeyWithSecret = z.infer<typeof ApiKeyWithSecret>;
export type CreateApiKeyInput = z.infer<typeof CreateApiKeyInput>;
export type RotateApiKeyInput = z.infer<typeof RotateApiKeyInput>;
