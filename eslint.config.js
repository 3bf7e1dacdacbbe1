// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layerConfigs } from './eslint-layers.js';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'coverage/',
      'bench/results/',
      '.ci/',
      'docs/api/',
      'scripts/',
      'spec/kinds/fixtures/types/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-extraneous-class': 'off',
      // client-node's model classes (V1ObjectMeta, …) are plain data shapes: the API returns JSON, never
      // instances, so object literals are the honest way to write Kubernetes objects.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
    },
  },
  // The layer table of docs/architecture.md (eslint-layers.js).
  ...layerConfigs(),
  {
    // Tests exercise error paths and untyped wire data on purpose.
    files: ['spec/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-empty-function': 'off',
    },
  },
  {
    files: ['bin/**/*.js', 'eslint.config.js', 'eslint-layers.js'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
