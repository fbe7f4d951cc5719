import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The architecture rules of `npm run lint` (eslint.architecture.js) fail on a violation: virtual
 * files linted with the project's own config, as CI lints the real ones.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: root });
});

/** The rule ids and messages ESLint reports for `code` as if it were the file at `file`. */
async function lint(file: string, code: string): Promise<{ ruleId: string | null; message: string }[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.map(({ ruleId, message }) => ({ ruleId, message }));
}

const boundaryErrors = async (file: string, code: string) =>
  (await lint(file, code)).filter((m) => m.ruleId === 'import-x/no-restricted-paths');

describe('domain boundaries', () => {
  it("refuses a domain importing another domain's internals", async () => {
    const errors = await boundaryErrors(
      'server/domains/reports/boundary-fixture.ts',
      "import { tagRows } from '../tags/tags.service.js';\nexport const x = tagRows;\n",
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain('only through its index.ts');
  });

  it('treats accounting as one domain: its subfolders import each other freely, other domains only through index.ts', async () => {
    expect(
      await boundaryErrors(
        'server/domains/accounting/sync/boundary-fixture.ts',
        "import { x } from '../periods/period-lock.js';\nexport const y = x;\n",
      ),
    ).toEqual([]);
    expect(
      await boundaryErrors(
        'server/domains/accounting/sync/boundary-fixture.ts',
        "import { x } from '../../parties/parties.service.js';\nexport const y = x;\n",
      ),
    ).toHaveLength(1);
  });

  it('refuses a wiring file directly under server/domains importing a domain internal', async () => {
    const errors = await boundaryErrors(
      'server/domains/boundary-fixture.ts',
      "import { x } from './tags/tags.service.js';\nexport const y = x;\n",
    );
    expect(errors).toHaveLength(1);
  });

  it('refuses lib/, db/ and shared/ importing a domain, even its index', async () => {
    for (const [file, spec] of [
      ['server/lib/boundary-fixture.ts', '../domains/tags/tags.service.js'],
      ['server/db/boundary-fixture.ts', '../domains/auth/passwords.js'],
      ['shared/contracts/boundary-fixture.ts', '../../server/domains/parties/parties.service.js'],
    ] as const) {
      const errors = await boundaryErrors(file, `import { x } from '${spec}';\nexport const y = x;\n`);
      expect(errors, file).toHaveLength(1);
      expect(errors[0]!.message).toContain('must not import them');
    }
  });

  it("lets the process, transports and seed import a domain's index.ts, and nothing past it", async () => {
    for (const [file, prefix] of [
      ['server/http/boundary-fixture.ts', '../domains'],
      ['server/trpc/boundary-fixture.ts', '../domains'],
      ['server/mcp/boundary-fixture.ts', '../domains'],
      ['server/seed/boundary-fixture.ts', '../domains'],
      ['server/boundary-fixture.ts', './domains'],
    ] as const) {
      expect(await boundaryErrors(file, `import { x } from '${prefix}/tags/index.js';\nexport const y = x;\n`), file).toEqual([]);
      const errors = await boundaryErrors(file, `import { x } from '${prefix}/tags/tags.service.js';\nexport const y = x;\n`);
      expect(errors, file).toHaveLength(1);
      expect(errors[0]!.message).toContain('only through its index.ts');
      const nested = await boundaryErrors(file, `import { x } from '${prefix}/accounting/sync/sync.service.js';\nexport const y = x;\n`);
      expect(nested, file).toHaveLength(1);
    }
  });
});

describe('import cycles', () => {
  it('refuses an import that closes a cycle under server/ (here http/metrics.ts → app.ts → http/metrics.ts)', async () => {
    const messages = await lint('server/http/metrics.ts', "import { createApp } from '../app.js';\nexport const app = createApp;\n");
    expect(messages.filter((m) => m.ruleId === 'import-x/no-cycle')).toHaveLength(1);
  });

  it('does not count a type-only import, which tsc erases (no runtime cycle)', async () => {
    const messages = await lint(
      'server/http/metrics.ts',
      "import type { createApp } from '../app.js';\nexport type App = typeof createApp;\n",
    );
    expect(messages.filter((m) => m.ruleId === 'import-x/no-cycle')).toEqual([]);
  });
});

describe('one access path for express routes', () => {
  it('refuses a domain route checking its caller itself instead of declaring its access with guardedRoute', async () => {
    const errors = (
      await lint(
        'server/domains/fx/route-fixture.ts',
        "import { authorizeRequest } from '../auth/index.js';\nexport const check = authorizeRequest;\n",
      )
    ).filter((m) => m.ruleId === 'no-restricted-imports');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain('guardedRoute');
  });
});
