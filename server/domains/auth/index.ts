/** The auth domain's public surface: for other domains, the transports, main and the seed (DESIGN §2). */
export { authorizeRequest, requestActor, sessionCache, type BearerRequest } from './authenticate.js';
export { bearerToken } from './tokens.js';
export { bootstrapAdmin } from './bootstrap.js';
export { authRouter } from './auth.router.js';
export { apiKeysRouter } from './api-keys/api-keys.router.js';
export { revokeSessionsOf } from './auth.service.js';
export { hashPassword, verifyPassword } from './passwords.js';
export { forgetSessionsOnAuthWrites } from './forget-on-write.js';
export { createApiKey } from './api-keys/api-keys.service.js';
