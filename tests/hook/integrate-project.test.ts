import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide } from '../../server/core/decide/decide.js';
import { startServer, type Running } from '../../server/main.js';
import { runOracle } from '../cli/run-oracle.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * `oracle integrate claude-code --project DIR` through the built command: the hooks, and with
 * `--http` the hook's bearer credential, go to Claude Code's personal project settings
 * (`.claude/settings.local.json`), which git is made to ignore, never to the shared
 * `.claude/settings.json` a repository commits; and a running gate takes DIR's new scope at once.
 */
const git = (cwd: string, ...args: string[]): string => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8' });
const gitInit = (dir: string): void => {
  execFileSync('git', ['init', '-q', dir]);
};
const json = (path: string): Record<string, unknown> => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
const SHARED = { model: 'opus', hooks: { Stop: [{ hooks: [{ type: 'command', command: 'notify' }] }] } };

describe('oracle integrate claude-code --project', () => {
  let tree: TempTree;
  let home = '';
  let policy = '';
  let running: Running | undefined;
  beforeAll(() => {
    tree = tempTree('oracle-integrate-project-');
    home = tree.dir('home');
    policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, fs.write] }\n`);
  });
  afterAll(async () => {
    await running?.close();
    tree.dispose();
  });
  const integrate = (project: string, ...flags: string[]) => runOracle(['integrate', 'claude-code', '--project', project, '--home', home, '--policy', policy, ...flags]);

  it('writes the http hook’s credential to the personal settings, which git is made to ignore, and never to the shared file', async () => {
    const repo = tree.dir('projects/repo');
    gitInit(repo);
    tree.file('projects/repo/.claude/settings.json', JSON.stringify(SHARED));
    const done = await integrate(repo, '--http');
    expect(done.code, done.stdout).toBe(0);
    const local = join(repo, '.claude', 'settings.local.json');
    expect(done.stdout).toContain(`ORACLE's hooks are in ${local}`);
    const token = readFileSync(join(home, 'data', 'hook-claude-code.token'), 'utf8').trim();
    expect(token).toMatch(/^oracle_ag_/u);
    expect(readFileSync(local, 'utf8')).toContain(`Bearer ${token}`);
    expect(json(join(repo, '.claude', 'settings.json'))).toEqual(SHARED);
    // Only this clone's excludes say so, not the committed .gitignore; git agrees, and would not add it.
    const exclude = join(repo, '.git', 'info', 'exclude');
    expect(readFileSync(exclude, 'utf8')).toContain('\n/.claude/settings.local.json\n');
    expect(done.stdout).toContain(`\`/.claude/settings.local.json\` added to ${exclude}`);
    expect(existsSync(join(repo, '.gitignore'))).toBe(false);
    git(repo, 'check-ignore', '-q', '.claude/settings.local.json');
    git(repo, 'add', '-A');
    expect(git(repo, 'diff', '--cached', '--name-only').split('\n').filter((l) => l !== '')).toEqual(['.claude/settings.json']);
    // Idempotent: the second run finds the rule and adds nothing.
    const again = await integrate(repo, '--http');
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain(`git ignores ${local} already`);
    expect(readFileSync(exclude, 'utf8').split('\n').filter((l) => l === '/.claude/settings.local.json')).toHaveLength(1);
    expect(again.stdout).toContain('no gate runs with this home now: the scope applies when it starts');
  });

  it('moves hooks an older ORACLE left in the shared settings out of it, and --remove cleans both files', async () => {
    const repo = join(tree.root, 'projects', 'repo');
    const local = join(repo, '.claude', 'settings.local.json');
    const shared = join(repo, '.claude', 'settings.json');
    const ours = json(local);
    // What an older ORACLE wrote: the http hook, credential and all, in the shared file.
    writeFileSync(shared, JSON.stringify({ ...SHARED, ...ours, hooks: { ...SHARED.hooks, ...(ours['hooks'] as object) } }));
    rmSync(local);
    const moved = await integrate(repo);
    expect(moved.code, moved.stdout).toBe(0);
    expect(moved.stdout).toContain(`moved ORACLE's hooks out of ${shared}`);
    expect(moved.stdout).toContain("it held the hook's credential: if it was ever committed, revoke it");
    expect(json(shared)).toEqual(SHARED);
    expect(readFileSync(local, 'utf8')).toContain('hook claude-code --home');
    // Both files hold ORACLE's hooks (an older ORACLE and this one): --remove takes them out of each.
    writeFileSync(shared, JSON.stringify({ ...SHARED, hooks: { ...SHARED.hooks, ...(json(local)['hooks'] as object) } }));
    const removed = await integrate(repo, '--remove');
    expect(removed.code, removed.stdout).toBe(0);
    expect(removed.stdout).toContain(`removed ORACLE's hooks from ${local}`);
    expect(removed.stdout).toContain(`removed ORACLE's hooks from ${shared}`);
    expect(json(shared)).toEqual(SHARED);
    expect(json(local)).toEqual({});
    expect((await integrate(repo, '--remove')).stdout).toContain('nothing to remove');
  });

  it('anchors the rule at a project in a subfolder, keeps a rule git has already, and refuses a file git tracks', async () => {
    const repo = tree.dir('projects/mono');
    gitInit(repo);
    const sub = tree.dir('projects/mono/packages/[app]');
    const done = await integrate(sub);
    expect(done.code, done.stdout).toBe(0);
    expect(readFileSync(join(repo, '.git', 'info', 'exclude'), 'utf8')).toContain('\n/packages/\\[app]/.claude/settings.local.json\n');
    git(sub, 'check-ignore', '-q', '.claude/settings.local.json');
    const ignored = tree.dir('projects/ignored');
    gitInit(ignored);
    tree.file('projects/ignored/.gitignore', 'settings.local.json\n');
    expect((await integrate(ignored)).stdout).toContain('git ignores');
    expect(readFileSync(join(ignored, '.git', 'info', 'exclude'), 'utf8')).not.toContain('settings.local.json');
    const tracked = tree.dir('projects/tracked');
    gitInit(tracked);
    tree.file('projects/tracked/.claude/settings.local.json', '{}\n');
    git(tracked, 'add', '.claude/settings.local.json');
    const refused = await integrate(tracked, '--http');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('git tracks');
    expect(readFileSync(join(tracked, '.claude', 'settings.local.json'), 'utf8')).toBe('{}\n');
  });

  it('has a running gate reload its policy, so the new project is in scope at once', async () => {
    // The reviewer's case: a gate on the installed default, a project outside its scopes.
    const ownHome = tree.dir('own-home');
    const project = tree.dir('elsewhere/app');
    tree.file('elsewhere/app/main.ts', 'x');
    running = await startServer({ home: ownHome, port: 0 });
    const before = decide({ tool: 'fs.read', args: { path: `${project}/main.ts` } }, running.runtime.gate.context);
    expect(before).toMatchObject({ decision: 'deny', code: 'PATH_OUTSIDE_SCOPE' });
    const done = await runOracle(['integrate', 'claude-code', '--project', project, '--home', ownHome]);
    expect(done.code, done.stdout).toBe(0);
    // The hook forwards to the running gate, which allows it now, without a restart.
    const read = JSON.stringify({ session_id: 's1', cwd: project, hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: `${project}/main.ts` } });
    expect(JSON.parse((await runOracle(['hook', 'claude-code', '--home', ownHome], read)).stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'allow' } });
    expect(running.runtime.gate.policyFile).toBe(join(ownHome, 'config', 'policy.yaml'));
    expect(done.stdout).toContain(`the running gate reloaded its policy (`);
    expect(done.stdout).toContain(`): ${project} is in scope there`);
    const again = await runOracle(['integrate', 'claude-code', '--project', project, '--home', ownHome]);
    expect(again.stdout).toContain('(it had this one already)');
  });
});
