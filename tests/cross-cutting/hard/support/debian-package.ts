import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** `binary` on PATH (or in /usr/bin, /usr/sbin), or undefined. */
export function onPath(binary: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/bin', '/usr/sbin'];
  for (const dir of dirs) {
    const candidate = path.join(dir || '.', binary);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * A Debian package providing `binary`, installed with apt-get when the binary is missing (as root
 * or through passwordless sudo), the way support/haproxy.ts installs HAProxy: `apt-get update`
 * first when the package lists are missing, or once more when the install fails. Throws when it
 * cannot be had: the suite that needs it proves nothing without it.
 */
export async function ensureDebianPackage(packages: string[], binary: string): Promise<string> {
  const found = onPath(binary);
  if (found) return found;
  const asRoot = process.getuid?.() === 0;
  const opts = { timeout: 1_200_000, maxBuffer: 64 * 1024 * 1024 };
  const apt = (args: string[]) =>
    asRoot
      ? run('apt-get', args, { ...opts, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
      : run('sudo', ['-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args], opts);
  const install = () => apt(['install', '-y', '--no-install-recommends', ...packages]);
  const lists = '/var/lib/apt/lists';
  let updated = false;
  try {
    if (!existsSync(lists) || !readdirSync(lists).some((f) => f.includes('_Packages'))) {
      await apt(['update']);
      updated = true;
    }
    try {
      await install();
    } catch (err) {
      if (updated) throw err;
      await apt(['update']);
      await install();
    }
  } catch (err) {
    throw new Error(
      `${binary} is not installed and apt-get install ${packages.join(' ')} failed: ${(err as Error).message.split('\n')[0]}`,
      {
        cause: err,
      },
    );
  }
  const installed = onPath(binary);
  if (!installed) throw new Error(`apt-get installed ${packages.join(' ')}, but there is no ${binary}`);
  return installed;
}
