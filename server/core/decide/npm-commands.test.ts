import { describe, expect, it } from 'vitest';
import { testContext } from '../../../tests/fixtures/context.js';
import { evaluate } from './decide.js';
import { npmArgv, npmCommand, npmCommandWords } from './npm-commands.js';

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
    // a unique prefix is what npm completes it to; an ambiguous or unknown word stays as written
    ['tes', 'test'],
    ['pub', 'publish'],
    ['publis', 'publish'],
    ['tok', 'token'],
    ['unpub', 'unpublish'],
    ['own', 'owner'],
    ['install-cl', 'ci'],
    ['ru', 'ru'],
    ['t', 'test'],
    ['frob', 'frob'],
    ['constructor', 'constructor'],
  ])('%s is %s', (word, command) => {
    expect(npmCommand(word)).toBe(command);
  });

  it.each([
    [['-s', 'publish'], ['publish']],
    [['--loglevel', 'silent', 'pub'], ['pub']],
    [['-w', 'auth', 'test'], ['test']],
    [['--global', 'false', 'publish', 'x'], ['publish']],
    [['--frob', 'x', 'publish'], ['x', 'publish']],
    [['--registry=r', 'token'], ['token']],
    [['--', 'publish'], ['publish']],
    [['-sg', 'publish'], ['publish']],
    [['-wx', 'a', 'publish'], ['a', 'publish']],
    [['--color', 'always', 'publish'], ['always', 'publish']],
    [['--description', 'publish'], ['publish']],
  ])('takes %j as possibly running %j', (argv, words) => {
    expect(npmCommandWords(argv)).toEqual(words);
  });

  it('changes only the first word, and never an option', () => {
    expect(npmArgv(['i', '-D', 'x'])).toEqual(['install', '-D', 'x']);
    const asWritten = ['--silent', 'i'];
    expect(npmArgv(asWritten)).toBe(asWritten);
    expect(npmArgv([])).toEqual([]);
  });

  it('keeps a denied command refused when npm’s own options come before it, or when it is abbreviated', () => {
    const ctx = testContext(`scopes:\n  projects: { roots: [{ path: "/p", mode: rw }] }\nprograms:\n  npm:\n    default: confirm\n    subcommands:\n      allow: [test]\n      deny: [publish, token]\n`, { pins: { npm: '/usr/bin/npm' }, cwd: '/p' });
    const run = (...args: string[]) => evaluate({ tool: 'exec.run', args: { program: 'npm', args, cwd: '/p' } }, ctx).decision;
    for (const argv of [['pub'], ['publis', '--dry-run'], ['tok', 'create'], ['--silent', 'publish'], ['-s', 'publish'], ['--loglevel=silent', 'token', 'create'], ['--loglevel', 'warn', 'pub']]) {
      expect(run(...argv), argv.join(' ')).toMatchObject({ decision: 'deny', code: 'PROGRAM_DENIED' });
    }
    expect(run('tes')).toMatchObject({ decision: 'allow' });
    expect(run('--silent', 'test')).toMatchObject({ decision: 'needs-approval', rule: 'programs.npm.default' });
  });

  it('refuses an explicit default: deny even on a program with no rules', () => {
    const yaml = (def: string) => `scopes:\n  projects: { roots: [{ path: "/p", mode: rw }] }\nprograms:\n  node: {${def}}\n`;
    const judge = (def: string) => evaluate({ tool: 'exec.run', args: { program: 'node', args: ['x.js'], cwd: '/p' } }, testContext(yaml(def), { pins: { node: '/usr/bin/node' }, cwd: '/p' })).decision;
    expect(judge('')).toMatchObject({ decision: 'needs-approval', tier: 'T2' });
    expect(judge(' default: deny ')).toMatchObject({ decision: 'deny', code: 'PROGRAM_ARGS_REFUSED' });
    expect(judge(' default: confirm ')).toMatchObject({ decision: 'needs-approval', rule: 'programs.node.default' });
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
