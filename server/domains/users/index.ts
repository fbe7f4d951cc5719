/** The users domain's public surface for other domains (DESIGN §2). */
export { findVisibleUser } from './users.service.js';
export { usersRouter } from './users.router.js';
export { createUser } from './users.service.js';
