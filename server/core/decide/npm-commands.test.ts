import { describe, expect, it } from 'vitest';
import { testContext } from '../../../tests/fixtures/context.js';
import { evaluate } from './decide.js';
import { npmArgv, npmCommand } from './npm-commands.js';

describe('npm commands as npm reads them', () => {
  it.each([
    ['i', 'install'],
    ['add', 'install'],
    ['isntall', 'install'],
    ['t', 'test'],
    ['tst', 'test'],
    ['run-script', 'run'],
    ['rum', 'run'],
    ['list', 'ls'],
    ['ic', 'ci'],
    ['x', 'exec'],
    ['installTest', 'install-test'],
    ['install', 'install'],
    ['publish', 'publish'],
    // a prefix npm would complete is left as written: no rule names it
    ['tes', 'tes'],
    ['constructor', 'constructor'],
  ])('%s is %s', (word, command) => {
    expect(npmCommand(word)).toBe(command);
  });

  it('changes only the first word, and never an option', () => {
    expect(npmArgv(['i', '-D', 'x'])).toEqual(['install', '-D', 'x']);
    const asWritten = ['--silent', 'i'];
    expect(npmArgv(asWritten)).toBe(asWritten);
    expect(npmArgv([])).toEqual([]);
  });

  it('reads a policy entry written with an alias as its command, both ways', () => {
    const ctx = testContext(
      `scopes:\n  projects: { roots: [{ path: "/p", mode: rw }] }\nprograms:\n  npm:\n    subcommands:\n      allow: [t, ls]\n      deny: [add]\n`,
      { pins: { npm: '/usr/bin/npm' }, cwd: '/p' },
    );
    const run = (...args: string[]) => evaluate({ tool: 'exec.run', args: { program: 'npm', args, cwd: '/p' } }, ctx).decision;
    for (const install of [['install', 'x'], ['i', 'x'], ['add', 'x']]) expect(run(...install)).toMatchObject({ decision: 'deny', code: 'PROGRAM_DENIED' });
    expect(run('test')).toMatchObject({ decision: 'allow' });
    expect(run('tst')).toMatchObject({ decision: 'allow' });
    expect(run('list')).toMatchObject({ decision: 'allow' });
    expect(run('run', 'x')).toMatchObject({ decision: 'deny', code: 'PROGRAM_ARGS_REFUSED' });
  });
});
