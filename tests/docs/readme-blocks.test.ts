import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { extractBlocks, runBlock, substitute, walkthroughs, type Block } from './readme-blocks.js';

/** The documentation test's extractor and runner, on small Markdown texts: it must fail when a walkthrough block fails. */

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function session() {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'fes-doc-unit-'));
  dirs.push(cwd);
  const stateFile = path.join(cwd, '.doc-state');
  return (block: Block, subs = {}) => runBlock(block, substitute(block, subs), { cwd, stateFile, timeoutMs: 30_000 });
}

const md = [
  '# Title',
  '',
  '```sh',
  'GREETING=hello',
  'export WHO=world',
  'say() { echo "$GREETING $1"; }',
  '```',
  '',
  '<!-- doc-test: skip (installs things) -->',
  '',
  '```sh',
  'npm ci',
  '```',
  '',
  '- a list item:',
  '',
  '  ```sh',
  '  say "$WHO"',
  '  ```',
  '',
  '```json',
  '{"not": "run"}',
  '```',
  '',
  '```ts',
  'console.log(`ts sees ${process.env.WHO}`);',
  '```',
  '',
].join('\n');

describe('extractBlocks', () => {
  it('finds every fenced block with its language, line and skip reason; walkthroughs are sh/bash/ts without skip', () => {
    const blocks = extractBlocks(md, 'X.md');
    expect(blocks.map((b) => [b.line, b.lang, b.skip ?? null])).toEqual([
      [3, 'sh', null],
      [11, 'sh', 'installs things'],
      [17, 'sh', null],
      [21, 'json', null],
      [25, 'ts', null],
    ]);
    expect(blocks[2]!.code).toBe('say "$WHO"\n'); // the list item's indentation removed
    expect(walkthroughs(blocks).map((b) => b.line)).toEqual([3, 17, 25]);
  });

  it('refuses to run a block that installs packages unless it is marked skip', () => {
    expect(() => walkthroughs(extractBlocks('```sh\nnpm ci && npm start\n```\n', 'X.md'))).toThrow('X.md:1: installs or deletes packages');
    expect(walkthroughs(extractBlocks('<!-- doc-test: skip (install) -->\n```sh\nnpm ci\n```\n', 'X.md'))).toEqual([]);
  });

  it('refuses an unclosed fence', () => {
    expect(() => extractBlocks('```sh\necho hi\n', 'X.md')).toThrow('X.md:1: code fence never closed');
  });

  it('substitutes the documented values and refuses any other <placeholder>', () => {
    const block: Block = { file: 'X.md', line: 7, lang: 'sh', code: "curl localhost:3000 -d '<printed password>' <category uuid>\n" };
    expect(() => substitute(block, { 'localhost:3000': '127.0.0.1:4000', '<printed password>': 's3cret' })).toThrow(
      'X.md:7: placeholder <category uuid> is not defined in the text',
    );
    const ok: Block = { ...block, code: "curl localhost:3000 -d '<printed password>'\n" };
    expect(substitute(ok, { 'localhost:3000': '127.0.0.1:4000', '<printed password>': 's3cret' })).toBe(
      "curl 127.0.0.1:4000 -d 's3cret'\n",
    );
  });
});

describe('runBlock', () => {
  it('carries variables, exports and functions from block to block, into ts blocks through the environment', async () => {
    const run = session();
    const [first, , third, , ts] = extractBlocks(md, 'X.md');
    expect(await run(first!)).toMatchObject({ exitCode: 0 });
    expect(await run(third!)).toMatchObject({ exitCode: 0, stdout: 'hello world\n' });
    expect(await run(ts!)).toMatchObject({ exitCode: 0, stdout: 'ts sees world\n' });
  });

  it('fails a block whose command fails, whose variable is undefined, or whose pipeline fails part-way', async () => {
    const run = session();
    for (const code of ['false\necho not reached\n', 'echo "$NEVER_DEFINED"\n', 'false | cat\n', 'exit 3\n']) {
      const result = await run({ file: 'X.md', line: 1, lang: 'sh', code });
      expect(result.exitCode, code).not.toBe(0);
      expect(result.stdout, code).not.toContain('not reached');
    }
  });

  it('fails a curl whose answer is an HTTP error, and a ts block that throws', async () => {
    const run = session();
    const http = await import('node:http');
    const server = http.createServer((_req, res) => res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"message":"Nope."}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const curl = await run({ file: 'X.md', line: 1, lang: 'sh', code: `curl -s http://127.0.0.1:${port}/missing\n` });
      expect(curl.exitCode).not.toBe(0);
      expect(curl.stdout).toContain('Nope.');
    } finally {
      server.close();
    }
    const ts = await run({ file: 'X.md', line: 2, lang: 'ts', code: "throw new Error('drifted');\n" });
    expect(ts.exitCode).not.toBe(0);
    expect(ts.stderr).toContain('drifted');
  });

  it('keeps the state of a failed block out of the next ones', async () => {
    const run = session();
    expect((await run({ file: 'X.md', line: 1, lang: 'sh', code: 'A=1\n' })).exitCode).toBe(0);
    expect((await run({ file: 'X.md', line: 2, lang: 'sh', code: 'A=2\nfalse\n' })).exitCode).not.toBe(0);
    expect(await run({ file: 'X.md', line: 3, lang: 'sh', code: 'echo "A=$A"\n' })).toMatchObject({ exitCode: 0, stdout: 'A=1\n' });
  });
});
