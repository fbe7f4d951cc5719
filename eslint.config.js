// ESLint flat config: typescript-eslint's recommended rules (syntactic only, no type
// information, so `npm run lint` stays fast). Formatting is Prettier's job, not ESLint's.
import { defineConfig, globalIgnores } from 'eslint/config';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { architecture } from './eslint.architecture.js';

/** Node globals for the few plain JS files (in TS files tsc reports undefined names instead). */
const nodeGlobals = Object.fromEntries(
  [
    'process',
    'console',
    'Buffer',
    'URL',
    'URLSearchParams',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'structuredClone',
    'fetch',
  ].map((name) => [name, 'readonly']),
);

export default defineConfig(
  globalIgnores(['**/node_modules/', '**/dist/', '.data/', 'coverage/', 'openapi.json', 'client-sdk/dist/']),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: nodeGlobals,
    },
    linterOptions: {
      reportUnusedDisableDirectives: 'error',
    },
    rules: {
      // `_`-prefixed names are deliberately unused (express handler arity, destructuring to omit)
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    files: ['tests/**', 'bench/**'],
    rules: {
      // test doubles and HTTP bodies are loosely typed on purpose
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  ...architecture, // domain boundaries, layers and import cycles (eslint.architecture.js)
);
