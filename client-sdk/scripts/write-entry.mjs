// tsc places the build under dist/client-sdk/src because src/index.ts imports the server's
// router type; this writes the package entry points that re-export it.
import { writeFileSync } from 'node:fs';

const target = './client-sdk/src/index.js';
writeFileSync(new URL('../dist/index.js', import.meta.url), `export * from '${target}';\n`);
writeFileSync(new URL('../dist/index.d.ts', import.meta.url), `export * from '${target}';\n`);
