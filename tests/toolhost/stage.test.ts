import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../server/app/runtime.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { runtimeFor } from './runtime-fixture.js';
import { git } from '../fixtures/git.js';

/**
 * A `git add` or `git stash -u` from Claude Code's Bash would put a deny_always file into the
 * repository, where `git show HEAD:.env.local` or `git grep` (run by Claude Code itself, outside
 * the sandbox) print it: the running gate asks git which untracked files the command takes and
 * refuses one that deny_always hides. Nothing is staged here: the agent's runtime runs the
 * command; the gate only answers.
 */
describe('git add and stash -u through the hook', () => {
  let tree: TempTree;
  let runtime: Runtime;
  let app = '';
  beforeAll(async () => {
    tree = tempTree('oracle-stage-');
    app = tree.dir('projects/app');
    git(app, 'init', '-q', '-b', 'main');
    tree.file('projects/app/src/a.ts', 'export {};\n');
    tree.file('projects/app/.gitignore', 'build/\n');
    git(app, 'add', '-A');
    git(app, 'commit', '-qm', 'first');
    tree.file('projects/app/src/b.ts', 'export {};\n');
    tree.file('projects/app/.env.local', 'DB_PASSWORD=CANARY\n');
    tree.file('projects/app/build/.env', 'BUILD=CANARY\n');
    runtime = await runtimeFor(
      tree,
      `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\ndeny_always: ["**/.env", "**/.env.*"]\nprograms:\n  git: { subcommands: { allow: [add, stash, status] } }\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, fs.write, proc.spawn, git.write] }\n`,
    );
  });
  afterAll(async () => {
    await runtime.close();
    tree.dispose();
  });
  const call = (cwd: string, ...argv: string[]) =>
    runtime.authorizeCall({ agentTool: 'Bash', input: { command: `git ${argv.join(' ')}` }, parts: [{ tool: 'exec.run', args: { program: 'git', args: argv, cwd }, cwd }], person: undefined, session: 's1' }, 0, 'claude-code');

  it('refuses a folder-wide add that would take an untracked deny_always file, naming it', async () => {
    for (const [cwd, argv] of [
      [app, ['add', '-A']],
      [app, ['add', '.']],
      [app, ['add', '--all']],
      [join(app, 'src'), ['add', '-A']], // -A is the whole tree, from any folder in it
      [app, ['stash', '-u']],
      [app, ['stash', 'push', '--include-untracked']],
    ] as const) {
      const answer = await call(cwd, ...argv);
      expect(answer.allowed, argv.join(' ')).toBe(false);
      expect(answer.reason, argv.join(' ')).toContain('PATH_DENY_ALWAYS');
      expect(answer.reason, argv.join(' ')).toContain('.env.local');
    }
  });

  it('allows what takes no such file: other paths, tracked changes only, or a stash of tracked work', async () => {
    for (const [cwd, argv] of [
      [app, ['add', 'src/b.ts']],
      [join(app, 'src'), ['add', '.']],
      [app, ['add', '-u']],
      [app, ['stash']],
      [app, ['status']],
    ] as const) {
      const answer = await call(cwd, ...argv);
      expect(answer.allowed, `${argv.join(' ')}: ${answer.reason}`).toBe(true);
    }
  });

  it('follows the repository’s ignore rules, unless the add forces ignored files in', async () => {
    writeFileSync(join(app, '.gitignore'), 'build/\n.env.local\n');
    try {
      const plain = await call(app, 'add', '-A');
      expect(plain.allowed, plain.reason).toBe(true);
      for (const argv of [['add', '-f', 'build'], ['add', '--force', '-A'], ['stash', '--all']]) {
        const forced = await call(app, ...argv);
        expect(forced.allowed, argv.join(' ')).toBe(false);
        expect(forced.reason, argv.join(' ')).toContain('PATH_DENY_ALWAYS');
      }
    } finally {
      writeFileSync(join(app, '.gitignore'), 'build/\n');
    }
  });

  it('asks a person when it cannot tell which files an add takes', async () => {
    const answer = await call(app, 'add', '--pathspec-from-file=list.txt');
    expect(answer.allowed).toBe(false);
    expect(answer.reason).toContain('needs a person');
  });
});
