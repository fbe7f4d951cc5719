import { z } from 'zod/v4';
import { PermissionName } from './auth.js';
import { Timestamp, Uuid } from './common.js';

const Password = z.string().min(10, 'at least 10 characters').max(1000);
const Email = z.email().max(320);

export const UserObject = z.object({
  id: Uuid,
  email: z.string(),
  name: z.string(),
  permissions: z.array(z.string()),
  isActive: z.boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CreateUserInput = z
  .object({
    email: Email,
    name: z.string().trim().min(1).max(200),
    password: Password,
    permissions: z.array(PermissionName).max(50).default([]),
  })
  .strict();

export const UpdateUserInput = z
  .object({
    id: Uuid,
    name: z.string().trim().min(1).max(200).optional(),
    password: Password.optional(),
    permissions: z.array(PermissionName).max(50).optional(),
    isActive: z.boolean().optional(),
  })
  .strict();

export type UserObject = z.infer<typeof UserObject>;
export type CreateUserInput = z.infer<typeof CreateUserInput>;
export type UpdateUserInput = z.infer<typeof UpdateUserInput>;
