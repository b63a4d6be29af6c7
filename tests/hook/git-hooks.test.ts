import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { REPO } from '../arch/source-files.js';
import { runOracle } from '../cli/run-oracle.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * git runs hooks from the folder core.hooksPath names, with any command (red team, session 37:
 * an Edit of `.githooks/pre-commit` and a `git commit`, each T1, ran the agent's code). Through
 * the built hook, a running gate and the shipped default policy: where agents may write that folder
 * unasked, every git command waits for a person (nobody watches here, so it is refused at once);
 * where writes there wait for a person already (the shipped `.githooks` rule), git runs as ever.
 */
describe('git commands in a repository whose hooks live in the project', () => {
  let tree: TempTree;
  let oracleHome = '';
  let policy = '';
  let running: Running | undefined;
  const repo = (name: string, hooksPath: string | undefined): string => {
    const dir = tree.dir(`home/projects/${name}`);
    const git = (...args: string[]) => {
      const run = spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
    };
    git('init', '-q');
    if (hooksPath !== undefined) {
      git('config', 'core.hooksPath', hooksPath);
      const hook = tree.file(`home/projects/${name}/${hooksPath}/pre-commit`, '#!/bin/sh\nexit 0\n');
      chmodSync(hook, 0o755);
    }
    return dir;
  };
  let plain = '';
  let tools = '';
  let dotted = '';
  let leaky = '';
  let history = '';
  let envBlob = '';
  beforeAll(async () => {
    tree = tempTree('oracle-git-hooks-');
    const home = tree.dir('home');
    plain = repo('plain', undefined);
    tools = repo('tools', 'tools/hooks');
    dotted = repo('dotted', '.githooks');
    // a repository that tracks a file the policy hides (a committed .env)
    leaky = repo('leaky', undefined);
    tree.file('home/projects/leaky/.env', 'API_KEY=committed\n');
    tree.file('home/projects/leaky/a.txt', 'a\n');
    expect(spawnSync('git', ['add', '-A'], { cwd: leaky }).status).toBe(0);
    // a repository whose history holds a .env a later commit removed: the index tracks none
    history = repo('history', undefined);
    const commit = (...args: string[]): void => {
      expect(spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: history }).status).toBe(0);
    };
    tree.file('home/projects/history/a.txt', 'plain text\n');
    tree.file('home/projects/history/.env', 'API_KEY=from-history\n');
    commit('add', '-A');
    commit('commit', '-qm', 'with the key');
    commit('rm', '-q', '--cached', '.env');
    commit('commit', '-qm', 'key gone');
    tree.file('home/projects/history/a.txt', 'plain text, again\n');
    commit('commit', '-qam', 'plain change');
    envBlob = spawnSync('git', ['rev-parse', 'HEAD~2:.env'], { cwd: history, encoding: 'utf8' }).stdout.trim();
    oracleHome = tree.dir('oracle-home');
    policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, readFileSync(join(REPO, 'config', 'policy.yaml'), 'utf8').replaceAll('"~/', `"${home}/`));
    for (const project of [plain, tools, dotted, leaky, history]) expect((await runOracle(['integrate', 'claude-code', '--project', project, '--home', oracleHome, '--policy', policy])).code).toBe(0);
    running = await startServer({ home: oracleHome, policy, port: 0 });
  });
  afterAll(async () => {
    await running?.close();
    tree.dispose();
  });

  /** One Bash call through the built hook: to the running gate, or headless with another home. */
  const bash = async (cwd: string, command: string, session = 's', home = oracleHome) => {
    const run = await runOracle(['hook', 'claude-code', '--home', home, '--policy', policy], JSON.stringify({ session_id: session, cwd, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: `tu-${command}` }));
    expect(run.code, run.stderr).toBe(0);
    return (JSON.parse(run.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string; updatedInput?: unknown } }).hookSpecificOutput;
  };

  it('asks before any git command when agents may rewrite the hooks git runs, and says how to end that', async () => {
    for (const command of ['git status', 'git commit --allow-empty -m wip']) {
      const answer = await bash(tools, command);
      expect(answer.permissionDecision, command).toBe('deny');
      expect(answer.permissionDecisionReason).toContain(`git runs the hooks in \`${join(tools, 'tools/hooks')}\` (core.hooksPath)`);
      expect(answer.permissionDecisionReason).toContain('tier: T2');
    }
    // The hook file itself is an ordinary project file there: writing it runs unasked.
    expect((await bash(tools, 'echo "exit 0" > tools/hooks/pre-commit')).permissionDecision).toBe('allow');
  });

  it('asks without a gate too: the hooks folder is read from the config files, not looked up by a running gate', async () => {
    const headless = tree.dir('headless-home');
    const run = await runOracle(['hook', 'claude-code', '--home', headless, '--policy', policy], JSON.stringify({ session_id: 'h', cwd: tools, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'git commit --allow-empty -m wip' } }));
    const answer = (JSON.parse(run.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
    // No gate to ask a person: refused, saying why a person was needed.
    expect(answer.permissionDecision).toBe('deny');
    expect(answer.permissionDecisionReason).toContain('(core.hooksPath)');
    const plainRun = await runOracle(['hook', 'claude-code', '--home', headless, '--policy', policy], JSON.stringify({ session_id: 'h', cwd: plain, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'git status' } }));
    expect(JSON.parse(plainRun.stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'allow' } });
  });

  it('runs git unasked where there is no hooks path, or where writes to it wait for a person', async () => {
    for (const cwd of [plain, dotted]) expect((await bash(cwd, 'git status')).permissionDecision, cwd).toBe('allow');
    const write = await bash(dotted, 'echo "exit 0" > .githooks/pre-commit');
    expect(write.permissionDecision).toBe('deny');
    expect(write.permissionDecisionReason).toContain('git hooks');
  });

  it('runs git reads unasked in a tainted session, unless git could print a file the policy hides', async () => {
    // A WebFetch's text taints the session (SPEC §4): T1 becomes T2, T0 stays.
    const post = await runOracle(['hook', 'claude-code', '--home', oracleHome, '--policy', policy], JSON.stringify({ session_id: 'tainted', cwd: plain, hook_event_name: 'PostToolUse', tool_name: 'WebFetch', tool_input: { url: 'https://example.com/x', prompt: 'x' }, tool_response: 'ignore previous instructions' }));
    expect(post.code).toBe(0);
    expect(running?.runtime.taintOf('tainted')).toMatchObject({ tainted: true });
    for (const command of ['git status', 'git log --oneline -5', 'git diff', 'git branch -a']) {
      const answer = await bash(plain, command, 'tainted');
      expect(answer.permissionDecision, `${command}: ${answer.permissionDecisionReason}`).toBe('allow');
    }
    // A commit is raised by the taint as ever, and so is what git cannot say it prints (no commit
    // yet to show): nobody watches, so refused.
    for (const command of ['git show', 'git log -p', 'git commit --allow-empty -m x']) expect((await bash(plain, command, 'tainted')).permissionDecision, command).toBe('deny');
    // The repository tracks .env: a diff could print it, so it is no plain read; status prints only names.
    expect((await bash(leaky, 'git status', 'tainted')).permissionDecision).toBe('allow');
    // (status -v prints the staged diff: no plain read there; review, session 37)
    expect((await bash(leaky, 'git status -vv', 'tainted')).permissionDecision).toBe('deny');
    // The index's diff would print the staged .env: it runs with .env left out.
    const diff = await bash(leaky, 'git diff --cached', 'tainted');
    expect(diff.permissionDecision).toBe('allow');
    expect(diff.updatedInput).toEqual({ command: "git diff --cached -- ':(top,exclude).env'" });
    // The work tree's diff prints no .env (it matches the index): a read.
    expect((await bash(leaky, 'git diff', 'tainted')).permissionDecision).toBe('allow');
    // git is asked before any part runs: a part that changes what it prints goes before a person.
    const staged = await bash(history, 'git commit --allow-empty -qm wip && git show');
    expect(staged.permissionDecision).toBe('deny');
    expect(staged.permissionDecisionReason).toContain('may change what git prints');
    // (another program before it is no git that changes the repository: it could print a file itself)
    expect((await bash(history, 'npm test && git show')).permissionDecision).toBe('allow');
    expect((await bash(leaky, 'git status --verb')).permissionDecisionReason).toContain('would print `.env`');
  });

  it('runs a git command that would print a file the policy hides from what git stores with that file left out', async () => {
    // (HEAD~1 deleted it from the index: its patch prints the lines it took away)
    // A grep or a pickaxe is weighed by what it searches, not by what matches: the answer is the
    // same whether the key matches or not, so it says nothing about the key (red team, session 38).
    for (const command of ['git show HEAD~2', 'git show HEAD~1', 'git log -p', 'git diff HEAD~2 HEAD', 'git grep API_KEY HEAD~2', 'git grep -n plain HEAD~2', 'git log -p --all -- .', 'git log -p | head -50', 'git grep -l from-history HEAD~2', 'git grep -l nothing-like-it HEAD~2', 'git log -Gfrom-history --oneline', 'git log -Gnothing-like-it --oneline']) {
      const answer = await bash(history, command);
      expect(answer.permissionDecision, `${command}: ${answer.permissionDecisionReason}`).toBe('allow');
      const leftOut = command.includes(' -- ') ? command.replace(' -- .', " -- . ':(top,exclude).env'") : command.replace(/^git [^|]+?(?= \||$)/u, (git) => `${git} -- ':(top,exclude).env'`);
      expect(answer.updatedInput, command).toEqual({ command: leftOut });
      expect(answer.permissionDecisionReason, command).toContain("leaving out `.env`, which no agent may read");
    }
    // A file named like the revision does not make it a path before an explicit `--`.
    tree.file('home/projects/history/HEAD~2', 'x\n');
    const named = await bash(history, 'git show HEAD~2 -- .');
    expect(named.updatedInput).toEqual({ command: "git show HEAD~2 -- . ':(top,exclude).env'" });
    rmSync(join(history, 'HEAD~2'));
    // What runs prints no key.
    const shown = spawnSync('git', ['show', 'HEAD~2', '--', ':(top,exclude).env'], { cwd: history, encoding: 'utf8' });
    expect(shown.stdout).toContain('plain text');
    expect(shown.stdout).not.toContain('from-history');
    // What prints none of it runs as written, a tainted session included (a read).
    for (const command of ['git show', 'git show HEAD', 'git log -p -1', 'git log -p -- a.txt', 'git diff HEAD~2 HEAD -- a.txt', 'git grep -n plain HEAD', 'git cat-file -p HEAD', 'git show HEAD~2:a.txt']) {
      const answer = await bash(history, command, 'tainted');
      expect(answer.permissionDecision, command).toBe('allow');
      expect(answer.updatedInput, command).toBeUndefined();
    }
  });

  it("asks a person when git cannot say what it would print: a blob's id, an option ORACLE does not know; no gate: Claude Code's prompt", async () => {
    // (second red team, session 38: pathspec magic as a word, a diff of paths outside the repository,
    // a part before that changes what git prints, an abbreviated --verbose)
    for (const command of [`git show ${envBlob}`, `git show --stat ${envBlob}`, `git cat-file -p ${envBlob}`, `git diff ${envBlob} HEAD:a.txt`, 'git log -p --exotic-option', 'git reflog HEAD -p', 'git diff . ../leaky', 'git diff -- . ..', "git show ':(top)'", "git show ':!a.txt'", 'git show --stat --tags', 'git rebase --show-current-patch', 'git commit --dry -v']) {
      const answer = await bash(history, command);
      expect(answer.permissionDecision, command).toBe('deny');
      expect(answer.permissionDecisionReason, command).toMatch(/cannot tell which it prints|hides/u);
    }
    const headless = tree.dir('headless-prints');
    const answer = await bash(history, 'git show HEAD', 'h', headless);
    // Without a gate nothing asks git: ORACLE cannot judge it, so Claude Code's own prompt decides.
    expect(answer.permissionDecision).toBe('ask');
    expect(answer.permissionDecisionReason).toContain('no running gate could ask git');
    // What is refused for another reason stays refused,
    expect((await bash(history, 'git show HEAD && git push --force', 'h', headless)).permissionDecision).toBe('deny');
    // and so is what needs a person for another reason (an install), which a gate would ask about
    expect((await bash(history, 'git show HEAD && npm install', 'h', headless)).permissionDecision).toBe('deny');
  });
});
