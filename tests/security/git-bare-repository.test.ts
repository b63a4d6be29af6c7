import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeLinkReader } from '../../server/adapters/link-reader.js';
import type { DecideContext } from '../../server/core/decide/context.js';
import { discoverRepository } from '../../server/core/decide/git-discovery.js';
import { REPO } from '../arch/source-files.js';
import { testContext } from '../fixtures/context.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { judgePayload } from '../hook/judge.js';

/**
 * A bare repository planted with ordinary file writes (red team, session 31): git finds a folder
 * holding HEAD, objects and refs as a repository and runs what its config names, so
 * `git -C evil tag -a v1`, allowed as everyday branch work, ran the agent's `core.editor`. Every
 * git command that would use such a repository is a person's call; the project's own `.git`
 * (deny_always, so the user's) keeps its allow.
 */
describe('git in a planted bare repository', () => {
  let tree: TempTree;
  let ctx: DecideContext;
  let home = '';
  let app = '';
  let evil = '';
  let marker = '';
  // git as the agent's shell runs it, without the machine's or the user's own configuration.
  const git = (cwd: string, ...args: string[]) =>
    spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' } });

  beforeAll(() => {
    tree = tempTree('oracle-bare-');
    home = tree.dir('home');
    app = tree.dir('home/projects/app');
    tree.file('home/projects/app/src/a.ts', 'export {}\n');
    expect(git(app, 'init', '-q').status).toBe(0);
    expect(git(app, 'add', 'src/a.ts').status).toBe(0);
    expect(git(app, 'commit', '-qm', 'first').status).toBe(0);
    const head = git(app, 'rev-parse', 'HEAD').stdout.trim();
    marker = join(tree.root, 'editor-ran');
    // What an agent can write with plain file writes in its project (none of it under .git).
    evil = tree.dir('home/projects/app/evil');
    tree.file('home/projects/app/evil/HEAD', 'ref: refs/heads/main\n');
    tree.file('home/projects/app/evil/objects/info/alternates', `${app}/.git/objects\n`);
    tree.file('home/projects/app/evil/refs/heads/main', `${head}\n`);
    tree.file('home/projects/app/evil/config', `[core]\n\tbare = true\n\teditor = "touch ${marker}; echo msg >"\n`);
    const yaml = readFileSync(`${REPO}/config/policy.yaml`, 'utf8');
    ctx = testContext(yaml, { reader: nodeLinkReader(), pins: { git: '/usr/bin/git' }, userHome: home, oracleHome: `${tree.root}/oracle-home` });
  });
  afterAll(() => {
    tree.dispose();
  });

  const judged = (command: string) => judgePayload({ session_id: 's', cwd: app, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } }, ctx, home);

  it('the premise: real git runs the planted config', () => {
    expect(git(evil, 'tag', '-a', 'v1').status).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });

  it('finds the repository as git does', () => {
    const reader = nodeLinkReader();
    expect(discoverRepository(evil, reader)).toEqual({ kind: 'bare', at: evil });
    expect(discoverRepository(join(evil, 'refs', 'heads'), reader)).toEqual({ kind: 'bare', at: evil });
    expect(discoverRepository(join(app, 'src'), reader)).toEqual({ kind: 'dotgit', at: join(app, '.git') });
    expect(discoverRepository(home, reader)).toEqual({ kind: 'none' });
  });

  it('a git command that would use it waits for a person, saying why; the project itself runs', async () => {
    for (const command of ['git -C evil tag -a v2', 'cd evil && git tag -a v3', 'git -C evil status', 'git -C evil/refs log']) {
      const verdict = await judged(command);
      expect(verdict.outcome, command).toBe('person');
      expect(verdict.reason, command).toContain(`git would use \`${evil}\` as a bare repository`);
    }
    expect((await judged('git status')).outcome).toBe('allow');
    expect((await judged('git -C src log --oneline')).outcome).toBe('allow');
  });
});
