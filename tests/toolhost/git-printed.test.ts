import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../server/app/runtime.js';
import { git } from '../fixtures/git.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { runtimeFor } from './runtime-fixture.js';

/**
 * deny_always hides files; git keeps what it ever tracked. Through the runtime (exec.run, as an
 * MCP agent runs git): a git command that would print a hidden file from the repository's
 * history is refused, saying how to leave it out (ORACLE's git reads pathspecs literally: by naming
 * what to print); that form runs and prints no key; what prints
 * nothing hidden is a read (T0); what git cannot say (a blob's id) waits for a person.
 */
describe('git commands that print what the repository stores', () => {
  let tree: TempTree;
  let runtime: Runtime;
  let app = '';
  let blob = '';

  beforeAll(async () => {
    tree = tempTree('oracle-git-printed-');
    app = tree.dir('projects/app');
    git(app, 'init', '-q', '-b', 'main');
    writeFileSync(`${app}/a.txt`, 'plain text\n');
    writeFileSync(`${app}/.env`, 'API_KEY=from-history\n');
    git(app, 'add', '-A');
    git(app, 'commit', '-qm', 'with the key');
    git(app, 'rm', '-q', '--cached', '.env');
    git(app, 'commit', '-qm', 'key gone');
    blob = git(app, 'rev-parse', 'HEAD~1:.env');
    runtime = await runtimeFor(tree, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\ndeny_always: [".git", "**/.env"]\nprincipals:\n  agents:\n    a: { capabilities: [fs.read, proc.spawn] }\nprograms:\n  git: { subcommands: { allow: [show, log, diff, grep, cat-file] } }\n`);
  });
  afterAll(async () => {
    await runtime.close();
    tree.dispose();
  });

  const run = (...args: string[]) => runtime.run({ tool: 'exec.run', agent: 'a', args: { program: 'git', args, cwd: app } });

  it('refuses printing a hidden file from history, and the form it advises runs without it', async () => {
    for (const args of [['show', 'HEAD~1'], ['log', '-p'], ['diff', 'HEAD~1', 'HEAD'], ['grep', 'API_KEY', 'HEAD~1']]) {
      const refusedRun = await run(...args);
      expect(refusedRun, args.join(' ')).toMatchObject({ decision: 'deny', code: 'PATH_DENY_ALWAYS', executed: false });
      expect(JSON.stringify(refusedRun)).not.toContain('from-history');
    }
    expect(JSON.stringify(await run('show', 'HEAD~1'))).toContain('name the files to print after `--`');
    // ORACLE's git reads pathspecs literally: an exclusion is a file name there, and leaves nothing out.
    expect(await run('show', 'HEAD~1', '--', '.', ':(top,exclude).env')).toMatchObject({ decision: 'deny', code: 'PATH_DENY_ALWAYS' });
    const named = await run('show', 'HEAD~1', '--', 'a.txt');
    expect(named).toMatchObject({ decision: 'allow', tier: 'T0', executed: true, exit_code: 0 });
    expect(JSON.stringify(named)).toContain('plain text');
    expect(JSON.stringify(named)).not.toContain('from-history');
  });

  it('runs what prints nothing hidden as a read, and asks about what git cannot say', async () => {
    expect(await run('show', 'HEAD', '--', 'a.txt')).toMatchObject({ decision: 'allow', tier: 'T0', exit_code: 0 });
    expect(await run('cat-file', '-p', 'HEAD')).toMatchObject({ decision: 'allow', tier: 'T0', exit_code: 0 });
    for (const args of [['show', blob], ['cat-file', '-p', blob]]) {
      const asked = await run(...args);
      expect(asked, args.join(' ')).toMatchObject({ decision: 'needs-approval', tier: 'T2', executed: false });
      expect(JSON.stringify(asked)).not.toContain('from-history');
    }
  });
});
