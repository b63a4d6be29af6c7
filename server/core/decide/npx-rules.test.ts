import { describe, expect, it } from 'vitest';
import { npxBuiltinRefusal } from './npx-rules.js';

describe('npx: where its own options end', () => {
  it('refuses an unknown option without a value right before the package name', () => {
    for (const argv of [['--no', 'tsc', '--noEmit'], ['--no', 'tsc'], ['-no', 'vitest', 'run'], ['--yes', '--no', 'eslint', '.'], ['--verbose', 'tsc']]) {
      expect(npxBuiltinRefusal(argv), argv.join(' ')).toMatchObject({ ok: false, code: 'ARG_SHAPE' });
    }
  });

  it('leaves what npx reads as meant to the policy', () => {
    for (const argv of [
      ['--yes=false', 'tsc', '--noEmit'],
      ['--no-install', 'tsc', '--noEmit'],
      ['--no', '--', 'tsc', '--noEmit'],
      ['-y', 'cowsay'],
      ['-p', 'typescript', 'tsc'],
      ['--package', 'typescript', '--', 'tsc'],
      ['tsc', '--no', 'x'],
      ['--no'],
      [],
    ]) {
      expect(npxBuiltinRefusal(argv), argv.join(' ')).toBeUndefined();
    }
  });
});
