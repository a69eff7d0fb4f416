import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // The programs using generated clients are type-checked on their own by their test, against what it generated.
  {
    ignores: [
      'dist/',
      'coverage/',
      'data/',
      'eslint.config.mjs',
      '.dependency-cruiser.cjs',
      'test/docs/generated-clients/',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  prettier,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/explicit-module-boundary-types': 'off',
      '@typescript-eslint/no-floating-promises': 'error',
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  {
    // Entry points talk to a terminal.
    files: [
      'src/main.ts',
      'src/cli/**/*.ts',
      'test/support/**/*.ts',
      'launchers/**/*.ts',
      'bench/**/*.ts',
      'deploy/**/*.ts',
    ],
    rules: { 'no-console': 'off' },
  },
  // Plain ES modules (the chart renderer) are outside the TypeScript project: linted without type information.
  { files: ['**/*.mjs'], ...tseslint.configs.disableTypeChecked },
);
