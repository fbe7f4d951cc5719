import { Op } from 'sequelize';
import { findByPkLocked } from '../../db/distributed.js';
import { transaction, type Transaction } from '../../db/database.js';
import { Project, ProjectMember } from '../../db/models/index.js';
import { conflict, forbidden, notFound, quotedValue } from '../../lib/errors.js';
import { scope, type Actor } from '../../lib/scope.js';
import type {
  CreateProjectInput,
  MemberObject,
  ProjectMemberInput,
  ProjectObject,
  UpdateProjectInput,
} from '../../../shared/contracts/workspaces.js';
import { findVisibleUser } from '../users/index.js';
import { presentMember, presentProject } from './presenters.js';

/** Workspace members see every project; project-only members see their own projects. */
export async function listProjects(actor: Actor, input: { workspaceId: number }): Promise<ProjectObject[]> {
  const reach = scope.workspaceReach(actor, input.workspaceId);
  const where = reach.all ? { workspaceId: reach.workspaceId } : { workspaceId: reach.workspaceId, id: reach.projectIds };
  return (await Project.findAll({ where, order: [['id', 'ASC']] })).map(presentProject);
}

/** A project to change: invisible → 404; visible only as a project member → 403. */
async function writableProject(actor: Actor, id: number, tx: Transaction): Promise<Project> {
  const project = await findByPkLocked(Project, id, tx);
  if (!project || !scope.canSeeProjectObject(actor, project.workspaceId, project.id)) throw notFound('Project');
  if (!scope.isWorkspaceMember(actor, project.workspaceId)) throw forbidden('Workspace membership required to change a project');
  return project;
}

async function assertCodeFree(workspaceId: number, code: string, tx: Transaction, exceptId?: number): Promise<void> {
  const where = exceptId ? { workspaceId, code, id: { [Op.ne]: exceptId } } : { workspaceId, code };
  if (await Project.findOne({ where, transaction: tx }))
    throw conflict(`Project code ${quotedValue(code)} is already used in this workspace`);
}

export async function createProject(actor: Actor, input: CreateProjectInput): Promise<ProjectObject> {
  scope.requireWorkspaceMember(actor, input.workspaceId);
  return transaction(async (tx) => {
    if (input.code) await assertCodeFree(input.workspaceId, input.code, tx);
    const project = await Project.create(
      { workspaceId: input.workspaceId, name: input.name, code: input.code ?? null },
      { transaction: tx },
    );
    return presentProject(project);
  });
}

export async function updateProject(actor: Actor, input: UpdateProjectInput): Promise<ProjectObject> {
  return transaction(async (tx) => {
    const project = await writableProject(actor, input.id, tx);
    if (input.code) await assertCodeFree(project.workspaceId, input.code, tx, project.id);
    if (input.name !== undefined) project.name = input.name;
    if (input.code !== undefined) project.code = input.code;
    await project.save({ transaction: tx });
    return presentProject(project);
  });
}

export async function addProjectMember(actor: Actor, input: ProjectMemberInput): Promise<MemberObject> {
  return transaction(async (tx) => {
    const project = await writableProject(actor, input.id, tx);
    const user = await findVisibleUser(actor, input.userId, tx);
    if (!user.isActive) throw notFound('User');
    const existing = await ProjectMember.findOne({ where: { projectId: project.id, userId: user.id }, transaction: tx });
    if (existing) throw conflict('The user is already a member of this project');
    const member = await ProjectMember.create(
      { projectId: project.id, userId: user.id, workspaceId: project.workspaceId },
      { transaction: tx },
    );
    return presentMember(user, member);
  });
}

export async function removeProjectMember(actor: Actor, input: ProjectMemberInput): Promise<{ success: true }> {
  return transaction(async (tx) => {
    const project = await writableProject(actor, input.id, tx);
    const member = await ProjectMember.findOne({ where: { projectId: project.id, userId: input.userId }, transaction: tx });
    if (!member) throw notFound('Project member');
    await member.destroy({ transaction: tx });
    return { success: true as const };
  });
}
