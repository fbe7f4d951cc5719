/** System: the bench's baseline procedures (DESIGN §2). */
export { benchBaselineRouters } from './bench.router.js';
