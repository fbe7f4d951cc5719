/** Reports: the public surface (DESIGN §2). */
export { reportsRouter } from './reports.router.js';
