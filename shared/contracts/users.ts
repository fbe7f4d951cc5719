import { z } from 'zod/v4';
import { MAX_USER_PERMISSIONS, PermissionName, PermissionValue } from './auth.js';
import { EmailInput, EmailValue, NAME_MAX, NonBlankText, Text, Timestamp, Uuid } from './common.js';

const Password = z.string().min(10, 'at least 10 characters').max(1000);
const Email = EmailInput;

export const UserObject = z.object({
  id: Uuid,
  email: EmailValue,
  name: Text(NAME_MAX),
  permissions: z.array(PermissionValue).max(MAX_USER_PERMISSIONS),
  isActive: z.boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CreateUserInput = z
  .object({
    email: Email,
    name: NonBlankText(NAME_MAX),
    password: Password,
    permissions: z.array(PermissionName).max(MAX_USER_PERMISSIONS).default([]),
  })
  .strict();

export const UpdateUserInput = z
  .object({
    id: Uuid,
    name: NonBlankText(NAME_MAX).optional(),
    password: Password.optional(),
    /** required when changing one's own password (CONTRACT §4) */
    currentPassword: z.string().min(1).max(1000).optional(),
    permissions: z.array(PermissionName).max(MAX_USER_PERMISSIONS).optional(),
    isActive: z.boolean().optional(),
  })
  .strict();

export type UserObject = z.infer<typeof UserObject>;
export type CreateUserInput = z.infer<typeof CreateUserInput>;
export type UpdateUserInput = z.infer<typeof UpdateUserInput>;
