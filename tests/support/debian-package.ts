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
 * Debian `packages`, installed with apt-get unless `present()` already holds (as root, or through
 * passwordless sudo; `apt-get update` first when the package lists are missing, or once more when
 * the install fails). Throws when they cannot be had: a suite that needs them proves nothing
 * without them. The one apt-get path of the suites (HAProxy, Patroni, promtool, Perl's client, …).
 */
export async function ensureDebianPackages(packages: string[], present: () => boolean, missing = packages.join(' ')): Promise<void> {
  if (present()) return;
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
    throw new Error(`${missing} is missing and apt-get install ${packages.join(' ')} failed: ${(err as Error).message.split('\n')[0]}`, {
      cause: err,
    });
  }
  if (!present()) throw new Error(`apt-get installed ${packages.join(' ')}, but ${missing} is still missing`);
}

/** A Debian package providing `binary`, installed when the binary is missing; the binary's path. */
export async function ensureDebianPackage(packages: string[], binary: string): Promise<string> {
  await ensureDebianPackages(packages, () => onPath(binary) !== undefined, binary);
  return onPath(binary)!;
}
