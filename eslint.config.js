// ESLint (flat config) with typescript-eslint's type-checked rules: `npm run lint:code`, part of `make lint`.
// Formatting is Prettier's (`npm run format:check`), so no stylistic rule is on here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'generated/',
      'sdk/*/src/generated/',
      'openapi/dist/',
      '**/dist/',
      '.data/',
      'bench/results/',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      // This file is plain JavaScript outside tsconfig.json: the default project types it.
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js', 'bench/processCpu.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      // node:test's describe/test/it return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['describe', 'test', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      // knex's where-callbacks return the (thenable) query builder they were given, and Express 5 awaits a handler's
      // promise: neither is a promise dropped where nothing waits. Conditions, spreads and returns stay checked.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      // An async implementation of an async interface may await nothing (the local KMS, a handler that answers at
      // once); staying async is what turns its throws into rejections, so this rule would ask for the worse code.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // Tests and benchmarks read JSON answers and fixtures as they come (`res.body.data.x`) and spy on methods: the
    // unsafe-any rules would only ask for casts that prove nothing (the assertions check the shapes). src, sdk and
    // scripts keep every rule.
    files: ['tests/**', '**/*.test.ts', 'bench/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-unsafe-enum-comparison': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
