/** Parties: the public surface (DESIGN §2). */
export { partiesRouter } from './parties.router.js';
