import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { oneAtATime } from '../../server/lib/one-at-a-time.js';

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

/** The installs of this process, one after another (apt-get takes dpkg's lock and fails at once when it is held). */
const installs = oneAtATime();

/** How long an apt-get call waits for a lock another process holds (a suite in another worker installing too). */
const LOCK_WAIT_MS = 600_000;
const heldLock = (err: unknown) => /Could not get lock|Unable to acquire the dpkg frontend lock|Unable to lock/.test(String(err));

/**
 * Debian `packages`, installed with apt-get unless `present()` already holds (as root, or through
 * passwordless sudo; `apt-get update` first when the package lists are missing, or once more when
 * the install fails). Throws when they cannot be had: a suite that needs them proves nothing
 * without them. The one apt-get path of the suites (HAProxy, Patroni, promtool, Perl's client, …).
 * Installs of one process run one after another (the failover suite asks for HAProxy and Patroni
 * together), and an apt-get that meets the lock of another process's waits for it.
 */
export function ensureDebianPackages(packages: string[], present: () => boolean, missing = packages.join(' ')): Promise<void> {
  if (present()) return Promise.resolve();
  return installs(() => installWhenMissing(packages, present, missing));
}

async function installWhenMissing(packages: string[], present: () => boolean, missing: string): Promise<void> {
  if (present()) return;
  const asRoot = process.getuid?.() === 0;
  const opts = { timeout: 1_200_000, maxBuffer: 64 * 1024 * 1024 };
  const aptOnce = (args: string[]) => {
    const all = ['-o', `DPkg::Lock::Timeout=${LOCK_WAIT_MS / 1000}`, ...args];
    return asRoot
      ? run('apt-get', all, { ...opts, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
      : run('sudo', ['-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...all], opts);
  };
  // DPkg::Lock::Timeout covers dpkg's locks; `update` takes the package lists' lock, which it does not cover
  const apt = async (args: string[]) => {
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        return await aptOnce(args);
      } catch (err) {
        if (!heldLock(err) || Date.now() > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, 2_000));
      }
    }
  };
  const aptInstall = () => apt(['install', '-y', '--no-install-recommends', ...packages]);
  const lists = '/var/lib/apt/lists';
  let updated = false;
  try {
    if (!existsSync(lists) || !readdirSync(lists).some((f) => f.includes('_Packages'))) {
      await apt(['update']);
      updated = true;
    }
    try {
      await aptInstall();
    } catch (err) {
      if (updated) throw err;
      await apt(['update']);
      await aptInstall();
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
