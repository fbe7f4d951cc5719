import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The documentation test's machinery: the fenced code blocks of a Markdown file, and a runner
 * that executes the walkthrough blocks in order as a newcomer pasting them into one terminal would.
 *
 * What runs: ```sh / ```bash blocks (bash, `set -euo pipefail`) and ```ts blocks (tsx). Other
 * languages (json, plain fences, diagrams) are not walkthroughs. A sh/ts block that is not one
 * either (the install command, production topology, a fragment of the reader's own app) carries
 * `<!-- doc-test: skip (the reason) -->` right before its fence (blank lines between allowed).
 */

export type Block = { file: string; line: number; lang: string; code: string; skip?: string };

/** tsx's loader, from this checkout (the block's directory need not hold node_modules). */
const TSX = pathToFileURL(path.resolve('node_modules/tsx/dist/loader.mjs')).href;

const RUN_LANGS = new Set(['sh', 'bash', 'ts', 'typescript']);
const SKIP = /^\s*<!--\s*doc-test:\s*skip\s*\((.+)\)\s*-->\s*$/;

/** Every fenced block of `markdown` (``` or ~~~, indented up to a list item's depth), with its 1-based line. */
export function extractBlocks(markdown: string, file: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j]!;
      if (line.trim().startsWith(fence!) && line.trim().replace(/[`~]/g, '') === '') break;
      body.push(line.startsWith(indent!) ? line.slice(indent!.length) : line.trimStart());
    }
    if (j === lines.length) throw new Error(`${file}:${i + 1}: code fence never closed`);
    let before = i - 1; // the marker may be separated from the fence by blank lines (as prettier writes it)
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const skip = before >= 0 ? SKIP.exec(lines[before]!)?.[1] : undefined;
    blocks.push({ file, line: i + 1, lang: lang!.toLowerCase(), code: body.join('\n') + '\n', ...(skip ? { skip } : {}) });
    i = j;
  }
  return blocks;
}

/**
 * The blocks the documentation test runs: sh, bash and ts, but those marked skip. A block that
 * installs or deletes the checkout's packages must be marked skip: the test refuses to run it
 * (its scratch directory links the checkout's node_modules).
 */
export function walkthroughs(blocks: Block[]): Block[] {
  const run = blocks.filter((b) => RUN_LANGS.has(b.lang) && !b.skip);
  for (const b of run) {
    if (/\bnpm\s+(ci|install|i|uninstall)\b|\brm\s+-\w*r/.test(b.code)) {
      throw new Error(`${b.file}:${b.line}: installs or deletes packages; mark it <!-- doc-test: skip (why) -->`);
    }
  }
  return run;
}

export type Substitutions = Record<string, string>;

/** Applies the documented substitutions (the service's real address, the printed password); any other `<placeholder>` is an error. */
export function substitute(block: Block, subs: Substitutions): string {
  let code = block.code;
  for (const [from, to] of Object.entries(subs)) code = code.split(from).join(to);
  const left = /(?:^|[\s'"=:/])<([a-z][a-z ]*[a-z])>/i.exec(code);
  if (left) throw new Error(`${block.file}:${block.line}: placeholder <${left[1]}> is not defined in the text`);
  return code;
}

export type RunResult = { exitCode: number | null; stdout: string; stderr: string };

/**
 * Runs one block in `cwd` with the shell state (variables, exports, functions) the earlier blocks
 * left in `stateFile`, and saves the state after it. A shell block runs in bash with
 * `set -euo pipefail`, and `curl` fails on an HTTP error status (`--fail-with-body`), so an
 * answer of 4xx/5xx fails the block. A ts block is written to a file in `cwd` and run with tsx,
 * with the exported variables of the state in its environment.
 */
export function runBlock(
  block: Block,
  code: string,
  opts: { cwd: string; stateFile: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<RunResult> {
  const isTs = block.lang === 'ts' || block.lang === 'typescript';
  let body = code;
  if (isTs) {
    const file = path.join(opts.cwd, `doc-block-${block.line}.mts`);
    writeFileSync(file, code);
    body = `node --import ${JSON.stringify(TSX)} ${JSON.stringify(file)}\n`;
  }
  const script = [
    'set -euo pipefail',
    `__state=${JSON.stringify(opts.stateFile)}`,
    'curl() { command curl --fail-with-body "$@"; }',
    'if [ -s "$__state" ]; then source "$__state"; fi',
    '__save() { { declare -p $(compgen -v | grep -Ev "^(BASH.*|EUID|PPID|SHELLOPTS|UID|FUNCNAME|GROUPS|DIRSTACK|PIPESTATUS|_|__.*|COMP.*|HISTCMD|LINENO|RANDOM|SECONDS|SRANDOM|EPOCH.*|OPTIND|OPTARG|PWD|OLDPWD|SHLVL|HOSTNAME|HOSTTYPE|MACHTYPE|OSTYPE|IFS|PS[0-9]|COLUMNS|LINES)$") 2>/dev/null || true; declare -f; } > "$__state.next"; mv "$__state.next" "$__state"; }',
    'trap \'__rc=$?; if [ "$__rc" = 0 ]; then __save; fi\' EXIT',
    body,
  ].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.once('error', reject);
    child.once('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, stdout, stderr });
    });
  });
}
