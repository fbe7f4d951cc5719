import type { Config } from './config.js';
import type { Logger } from 'pino';

export type Secrets = { jwtSecret: string; credentialsKeys: { kid: string; key: Buffer }[] };
export type Runtime = { config: Config; secrets: Secrets; logger: Logger };

let current: Runtime | undefined;

/** Process-wide settings resolved at start (config, secrets, logger). */
export function setRuntime(r: Runtime): void {
  current = r;
}

export function runtime(): Runtime {
  if (!current) throw new Error('runtime not initialised');
  return current;
}
