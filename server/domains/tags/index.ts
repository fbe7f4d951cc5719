/** Tags: the public surface (DESIGN §2). */
export { tagsRouter } from './tags.router.js';
