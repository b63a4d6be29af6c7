import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHost, textOf } from '../fixtures/mcp-host.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout.trim();
}

/**
 * git_commit as a model uses it (issue 13): paths relative to the repository, as `git status`
 * prints them (never the gate's working directory), and the repository's own identity when it
 * has one.
 */
describe('oracle mcp git_commit', () => {
  let tree: TempTree;
  let client: Client;
  let own = '';
  let plain = '';

  beforeAll(async () => {
    tree = tempTree('oracle-mcp-git-');
    own = tree.dir('projects/own');
    plain = tree.dir('projects/plain');
    for (const repo of [own, plain]) {
      git(repo, 'init', '-q', '-b', 'main');
      git(repo, '-c', 'user.name=setup', '-c', 'user.email=setup@x', 'commit', '-q', '--allow-empty', '-m', 'init');
    }
    git(own, 'config', 'user.name', 'Repo Person');
    git(own, 'config', 'user.email', 'repo@example.com');
    const policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\ndeny_always: [".git"]\nprincipals:\n  agents:\n    mcp: { capabilities: [fs.read, fs.write, git.write] }\n`);
    ({ client } = await mcpHost(['--home', tree.dir('home'), '--policy', policy]));
  });
  afterAll(async () => {
    await client.close();
    tree.dispose();
  });

  it('commits paths relative to the repository, as the repository’s own user', async () => {
    writeFileSync(join(own, 'a.txt'), 'a\n');
    writeFileSync(join(own, 'left.txt'), 'not committed\n');
    const result = await client.callTool({ name: 'git_commit', arguments: { repo: own, message: 'add a', paths: ['a.txt'] } });
    expect(result.isError, textOf(result)).not.toBe(true);
    expect(git(own, 'log', '-1', '--format=%an <%ae>|%cn')).toBe('Repo Person <repo@example.com>|Repo Person');
    expect(git(own, 'show', '--name-only', '--format=', 'HEAD')).toBe('a.txt');
    expect(git(own, 'status', '--porcelain')).toContain('?? left.txt');
  });

  it('says once, in git’s words, why a commit with nothing staged did not happen', async () => {
    const result = await client.callTool({ name: 'git_commit', arguments: { repo: own, message: 'nothing' } });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toMatch(/^failed: GIT_FAILED: git commit failed \(exit 1; git's output follows\)/u);
    const said = /nothing (?:added )?to commit/u;
    expect(text.match(new RegExp(said.source, 'gu'))).toHaveLength(1);
  });

  it('falls back to the user’s global identity (or a labelled one) where the repository has none', async () => {
    writeFileSync(join(plain, 'b.txt'), 'b\n');
    const result = await client.callTool({ name: 'git_commit', arguments: { repo: plain, message: 'add b', paths: ['b.txt'] } });
    expect(result.isError, textOf(result)).not.toBe(true);
    const global = spawnSync('git', ['config', '--global', '--get', 'user.name'], { encoding: 'utf8' }).stdout.trim();
    expect(git(plain, 'log', '-1', '--format=%an')).toBe(global === '' ? 'ORACLE agent' : global);
  });
});
