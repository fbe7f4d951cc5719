/** The auth domain's public surface for other domains (DESIGN §2). */
export { authorizeRequest } from './authenticate.js';
export { revokeSessionsOf } from './auth.service.js';
export { hashPassword, verifyPassword } from './passwords.js';
export { forgetSessionsOnAuthWrites } from './forget-on-write.js';
export { createApiKey } from './api-keys/api-keys.service.js';
