// `npm run lint`: typescript-eslint with type information over every TypeScript file (sources, tests, e2e,
// benches). Formatting is prettier's; unused locals and parameters are tsc's (noUnusedLocals, noUnusedParameters).
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/', '.corral/', 'node_modules/'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // node:test's describe/it/test return promises that the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      // tsc reports unused locals and parameters (and allows `_`-prefixed ones and rest siblings); one place is enough.
      '@typescript-eslint/no-unused-vars': 'off',
      // An async function without await is how a fake or a check satisfies a Promise-returning contract, and it turns
      // a synchronous throw into a rejection; dropping `async` would change that behaviour.
      '@typescript-eslint/require-await': 'off',
      // String() of a decoded JSON value (`unknown`) is deliberate where a message quotes what a client sent, as Go's
      // %v would; template literals stay checked by restrict-template-expressions.
      '@typescript-eslint/no-base-to-string': 'off',
      // A cursor that starts at `this` and walks a tree (FieldSet) is not the `self = this` closure idiom the rule targets.
      '@typescript-eslint/no-this-alias': 'off',
      // Rejecting with a value caught in a `catch` (unknown) passes an error on; anything else must be an Error.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
    },
  },
  {
    // Tests read parsed JSON and YAML (`any`) and assert on it field by field; typing every such document would
    // add casts, not safety. Production code keeps the no-unsafe-* rules.
    files: ['**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
