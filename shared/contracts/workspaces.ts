import { z } from 'zod/v4';
import { Currency, CurrencyValue, EmailValue, IntId, IntIdValue, NAME_MAX, NonBlankText, Text, Timestamp, Uuid } from './common.js';

export const WorkspaceObject = z.object({
  id: IntIdValue,
  name: Text(NAME_MAX),
  baseCurrency: CurrencyValue,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CreateWorkspaceInput = z.object({ name: NonBlankText(NAME_MAX), baseCurrency: Currency.optional() }).strict();
export const UpdateWorkspaceInput = z
  .object({
    id: IntId,
    name: NonBlankText(NAME_MAX).optional(),
    baseCurrency: Currency.optional(),
  })
  .strict();

export const MemberObject = z.object({ userId: Uuid, email: EmailValue, name: Text(NAME_MAX), createdAt: Timestamp });
export const AddMemberInput = z.object({ id: IntId, userId: Uuid }).strict();
export const RemoveMemberInput = z.object({ id: IntId, userId: Uuid });

const PROJECT_CODE_MAX = 50;

export const ProjectObject = z.object({
  id: IntIdValue,
  workspaceId: IntIdValue,
  name: Text(NAME_MAX),
  code: Text(PROJECT_CODE_MAX).nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const ProjectCode = NonBlankText(PROJECT_CODE_MAX);
export const CreateProjectInput = z
  .object({
    workspaceId: IntId,
    name: NonBlankText(NAME_MAX),
    code: ProjectCode.optional(),
  })
  .strict();
export const UpdateProjectInput = z
  .object({
    id: IntId,
    name: NonBlankText(NAME_MAX).optional(),
    code: ProjectCode.nullable().optional(),
  })
  .strict();

export type WorkspaceObject = z.infer<typeof WorkspaceObject>;
export type ProjectObject = z.infer<typeof ProjectObject>;
export type MemberObject = z.infer<typeof MemberObject>;

export const ProjectMemberInput = z.object({ id: IntId, userId: Uuid }).strict();
export const RemoveProjectMemberInput = z.object({ id: IntId, userId: Uuid });

export type CreateWorkspaceInput = z.infer<typeof CreateWorkspaceInput>;
export type UpdateWorkspaceInput = z.infer<typeof UpdateWorkspaceInput>;
export type AddMemberInput = z.infer<typeof AddMemberInput>;
export type RemoveMemberInput = z.infer<typeof RemoveMemberInput>;
export type CreateProjectInput = z.infer<typeof CreateProjectInput>;
export type UpdateProjectInput = z.infer<typeof UpdateProjectInput>;
export type ProjectMemberInput = z.infer<typeof ProjectMemberInput>;
