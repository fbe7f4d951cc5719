/** Runs one psql command (the machine's psql client) and counts what it writes to stdout. */
import { spawn } from 'node:child_process';

export async function psql(url: string, command: string): Promise<{ seconds: number; bytes: number }> {
  const started = performance.now();
  const child = spawn('psql', [url, '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-c', command], { stdio: ['ignore', 'pipe', 'pipe'] });
  let bytes = 0;
  let errText = '';
  child.stdout.on('data', (chunk: Buffer) => (bytes += chunk.length));
  child.stderr.on('data', (chunk: Buffer) => (errText += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`psql exited ${code}: ${errText.slice(0, 500)}`);
  return { seconds: (performance.now() - started) / 1000, bytes };
}
