import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Debian's `chromium`, installed with apt-get when missing (as root, or through passwordless
 * sudo). Resolves why it is unavailable, or null when it is there.
 */
export async function ensureChromium(): Promise<string | null> {
  if (existsSync(CHROMIUM)) return null;
  const asRoot = process.getuid?.() === 0;
  const apt = (args: string[]) =>
    asRoot
      ? run('apt-get', args, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 })
      : run('sudo', ['-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args], { timeout: 600_000, maxBuffer: 64 * 1024 * 1024 });
  try {
    await apt(['update']);
    await apt(['install', '-y', 'chromium']);
  } catch (err) {
    return `apt-get install chromium failed: ${(err as Error).message.split('\n')[0]}`;
  }
  return existsSync(CHROMIUM) ? null : `apt-get installed chromium but ${CHROMIUM} is missing`;
}
