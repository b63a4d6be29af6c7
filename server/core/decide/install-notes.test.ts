import { describe, expect, it } from 'vitest';
import { installNote } from './install-notes.js';

describe('installNote', () => {
  it.each([
    ['npm', ['install', 'lodash'], 'install scripts'],
    ['npm', ['--silent', 'i'], 'install scripts'],
    ['npm', ['ci'], 'install scripts'],
    ['pnpm', ['add', 'x'], 'install scripts'],
    ['yarn', [], 'install scripts'],
    ['npm', ['exec', 'x'], "runs a package's code"],
    ['npx', ['tsc'], "runs a package's code"],
    ['npx', ['tsc'], '`npx --yes=false NAME` never downloads'],
    ['pip', ['install', 'requests'], 'build code'],
    ['python3', ['-m', 'pip', 'install', 'x'], 'build code'],
    ['cargo', ['install', 'ripgrep'], 'build scripts'],
  ])('%s %j says what it runs', (program, argv, says) => {
    expect(installNote(program, argv)).toContain(says);
  });

  it.each([
    ['npm', ['test']],
    ['npm', ['run', 'build']],
    ['yarn', ['test']],
    ['pip', ['list']],
    ['python3', ['-m', 'pytest']],
    ['cargo', ['build']],
    ['git', ['install']],
    // npm refuses to download with --no: only an installed copy runs
    ['npx', ['--yes=false', 'tsc']],
  ])('%s %j is not an install', (program, argv) => {
    expect(installNote(program, argv)).toBeUndefined();
  });
});
