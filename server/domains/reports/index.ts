/** Reports: the public surface (DESIGN §2). */
export { reportsRouter } from './reports.router.js';
export { reportsPdfRoutes } from './pdf/export-pdf.http.js';
