// Lint: typescript-eslint's recommended rules (no type information, so it stays fast) and a
// few of our own. `npx eslint .` in CI (.ci/run, "surface checks").
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import layers from './scripts/eslint-layers.mjs';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'build/**',
      'build-*/**',
      'prebuilds/**',
      'node_modules/**',
      'coverage/**',
      'structrank-demo/**',
      'structrank-pipeline/**',
      'bench/.peers/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        performance: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
        NodeJS: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      eqeqeq: ['error', 'always'],
      'no-var': 'error',
      'prefer-const': 'warn',
      // Statement-level comma expressions in benchmarks, and regexes that match printed
      // columns of spaces (EVALB, conlleval tables), are deliberate.
      '@typescript-eslint/no-unused-expressions': 'off',
      'no-regex-spaces': 'off',
      'no-useless-assignment': 'off',
    },
  },
  // lib/ is layered (scripts/layers.mjs): no import of a higher layer, no circle of files.
  {
    files: ['lib/**/*.ts'],
    plugins: { layers },
    rules: { 'layers/no-upward-import': 'error', 'layers/no-cycle': 'error' },
  },
  // Every error lib/ throws is one of the family in lib/errors.ts (docs/errors.md): a class and a code.
  {
    files: ['lib/**/*.ts'],
    ignores: ['lib/errors.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Error']",
          message: 'throw a class of lib/errors.ts (docs/errors.md), not a plain Error',
        },
      ],
    },
  },
);
