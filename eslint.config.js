import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * `npm run lint` (CI runs it): ESLint's and typescript-eslint's recommended rules, then
 * `prettier --check .`; formatting is Prettier's (`.prettierrc.json`), so eslint-config-prettier
 * turns off the rules it would fight with.
 */
export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'coverage/',
      'data/',
      'prisma/generated/',
      'rest-facade/generated/',
      'bench/peers/dist/',
      'bench/peers/node_modules/',
      'tools/*/node_modules/',
      'examples/frontend/generated/',
      'examples/frontend/dist/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      // `_`-named: a parameter a signature needs, or what a destructuring leaves out on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true }],
      // A `let` a closure reads before its one assignment (a timer the cleanup above it clears).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Tests read answers' JSON as `any`: what they assert is the value, not its type.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Promises in production code are awaited, returned or deliberately let go (`void`): a floating
    // one loses its rejection (an unhandled rejection ends the process), a promise where a callback
    // is expected is never awaited. Type-aware, so only over the production tree (tsconfig.build.json).
    files: ['{kernel,pipeline,database,subgraphs,gateway,rest-facade,server}/**/*.ts'],
    languageOptions: { parserOptions: { project: './tsconfig.build.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  prettier,
);
