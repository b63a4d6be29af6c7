// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * SPEC §6: no shell, ever. These selectors are also asserted by tests/arch/no-shell.test.ts,
 * which fails if they are weakened here or disabled anywhere in the source.
 */
export const NO_SHELL_SYNTAX = [
  {
    selector: "Property[key.name='shell']:not([value.value=false])",
    message: 'SPEC §6: never spawn through a shell; pass an argv array and leave `shell` unset or false.',
  },
  {
    selector: "CallExpression[callee.property.name='execSync'], CallExpression[callee.name=/^(exec|execSync)$/]",
    message: 'SPEC §6: exec/execSync run a command string through a shell; use spawn/execFile with an argv array.',
  },
  {
    // Only named imports, so no-restricted-imports can see every function taken from it.
    selector: "ImportDeclaration[source.value=/^(node:)?child_process$/] > :matches(ImportNamespaceSpecifier, ImportDefaultSpecifier)",
    message: 'SPEC §6: import child_process functions by name (spawn, execFile), never the whole module.',
  },
  {
    selector: "CallExpression[callee.name='require'][arguments.0.value=/^(node:)?child_process$/]",
    message: 'SPEC §6: import child_process functions by name (spawn, execFile), never the whole module.',
  },
];

export const NO_SHELL_IMPORTS = {
  paths: [
    { name: 'node:child_process', importNames: ['exec', 'execSync'], message: 'SPEC §6: no shell; use spawn or execFile with argv.' },
    { name: 'child_process', importNames: ['exec', 'execSync'], message: 'SPEC §6: no shell; use spawn or execFile with argv.' },
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'certs/**', 'coverage/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['eslint.config.js'] }, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'no-restricted-syntax': ['error', ...NO_SHELL_SYNTAX],
      'no-restricted-imports': ['error', NO_SHELL_IMPORTS],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      'max-params': ['error', 4],
      eqeqeq: 'error',
    },
  },
  {
    files: ['**/*.test.ts', 'tests/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      'max-params': 'off',
    },
  },
  { files: ['eslint.config.js'], ...tseslint.configs.disableTypeChecked },
);
