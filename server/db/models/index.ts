import { User } from './User.js';
import { Session } from './Session.js';
import { Workspace } from './Workspace.js';
import { WorkspaceMember } from './WorkspaceMember.js';
import { Project } from './Project.js';
import { ProjectMember } from './ProjectMember.js';
import { Party } from './Party.js';
import { Tag } from './Tag.js';
import { EntrySource } from './EntrySource.js';

export { User, Session, Workspace, WorkspaceMember, Project, ProjectMember, Party, Tag, EntrySource };

/** Every model, registered with the Sequelize instance. Add new models here. */
export const allModels = [User, Session, Workspace, WorkspaceMember, Project, ProjectMember, Party, Tag, EntrySource];
