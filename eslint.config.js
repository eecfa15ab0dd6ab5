// ESLint: typescript-eslint's type-checked rules over src/, test/ and bench/ (issue 12). Formatting
// is Prettier's (`npm run lint` checks both); import layering is dependency-cruiser's.
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // console/src/api/schema.d.ts is generated (test/http/console-api-types.test.ts).
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/', 'src/**/*.py', 'console/src/api/schema.d.ts'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A switch over a union names every member, or says what the rest do in a `default`.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-floating-promises': 'error',
      // Caller values of any JSON type are quoted in messages with String(): the intent, not a slip.
      '@typescript-eslint/no-base-to-string': 'off',
      // Fastify plugins, hooks and handlers are async by contract, with or without an await.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Only src/config.ts reads the environment (design.md).
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read settings in src/config.ts only.' }],
    },
  },
  {
    // The server's settings are read in src/config.ts; the operator's CLI client reads its own
    // (TARIFF_URL, OS_*) in src/client/settings.ts.
    files: ['src/config.ts', 'src/client/settings.ts', 'test/**', 'bench/**', 'scripts/**', 'bin/**', 'vitest.config.ts', '*.config.*'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // Tests and benchmarks handle JSON answers of any shape.
    files: ['test/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        Buffer: 'readonly',
        performance: 'readonly',
        setImmediate: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        fetch: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        module: 'writable',
        require: 'readonly',
        structuredClone: 'readonly',
      },
    },
  },
  {
    // The web console (console/): browser code, type-checked against its own tsconfig (DOM, Preact JSX).
    files: ['console/**/*.ts', 'console/**/*.tsx'],
    languageOptions: {
      parserOptions: { project: './console/tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
  },
);
