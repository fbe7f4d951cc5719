// The one place the SDK reaches the server's router type. The package build replaces this
// module's declaration with a self-contained copy (scripts/build.mjs), so an installed SDK
// needs no server sources.
export type { AppRouter } from '../../server/trpc/router.js';
