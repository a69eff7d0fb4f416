import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // The generated client is type-checked on its own by the OpenAPI test, against types generated there.
  {
    ignores: [
      'dist/',
      'coverage/',
      'data/',
      'eslint.config.mjs',
      '.dependency-cruiser.cjs',
      'test/docs/generated-client/',
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
);
