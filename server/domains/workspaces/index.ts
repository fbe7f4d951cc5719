/** Workspaces, projects, members and entry sources: the public surface (DESIGN §2). */
export { workspacesRouter } from './workspaces.router.js';
export { projectsRouter } from './projects.router.js';
export { entrySourcesRouter } from './entry-sources.router.js';
export { addProjectMember } from './projects.service.js';
export { addMember } from './members.service.js';
