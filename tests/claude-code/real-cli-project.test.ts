import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { REPO } from '../arch/source-files.js';
import { runOracle } from '../cli/run-oracle.js';
import { auditRecords } from '../fixtures/audit-records.js';
import { claudeUnavailable, runClaude } from '../fixtures/claude-cli.js';
import { startMessagesApi, type MessagesApi } from '../fixtures/messages-api.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * The real Claude Code CLI (the pinned dev dependency) in a git repository wired by `oracle
 * integrate claude-code --project DIR` only: nothing in the user's settings, the hooks in the
 * project's personal `.claude/settings.local.json`. Claude Code runs them (a call ORACLE refuses is
 * refused, and the gate's audit log has every call), the credential is in no file git would
 * commit, and the running gate took the project's new scope without a restart. Fails, never
 * skips, when the CLI cannot start here.
 */
const CANARY = 'CANARY-PROJECT-KEY-41d2';
const ENV_CANARY = 'CANARY-PROJECT-ENV-77b1';
const KINDS = ['http', 'command'] as const;
/** How Claude Code writes every commit message: a quoted here-document, here naming `.env` in words. */
const MESSAGE = 'Ignore .env files\n\nCo-Authored-By: Claude <noreply@anthropic.com>';
const COMMIT = `git add README.md && git commit --allow-empty -m "$(cat <<'EOF'\n${MESSAGE}\nEOF\n)"`;

let tree: TempTree;
let home = '';
let project = '';
let oracleHome = '';
let policy = '';
let api: MessagesApi;
let running: Running;

beforeAll(async () => {
  const unavailable = claudeUnavailable();
  if (unavailable !== undefined) throw new Error(unavailable);
  tree = tempTree('oracle-claude-project-');
  home = tree.dir('home');
  // Outside every root of the default policy: only integrate puts it in scope.
  project = tree.dir('home/work/app');
  oracleHome = tree.dir('oracle-home');
  tree.file('home/work/app/README.md', '# app\n');
  tree.file('home/.ssh/id_rsa', `${CANARY}\n`);
  tree.file('home/work/app/NOTES.md', 'one\ntwo\n');
  tree.file('home/work/app/.env', `KEY=${ENV_CANARY}\n`);
  tree.file('home/.gitconfig', '[user]\n\tname = Test\n\temail = test@example.com\n');
  // The project's own tsc, which says whether npx ran it with `--yes=false` (npx then sets
  // npm_config_yes, to the empty string, in its child's environment; plain `npx` leaves it unset).
  tree.file('home/work/app/package.json', '{ "name": "app", "version": "1.0.0", "private": true }\n');
  tree.file('home/work/app/node_modules/.bin/tsc', '#!/bin/sh\necho "LOCAL-TSC $* download-refused=${npm_config_yes+yes}"\n');
  chmodSync(join(project, 'node_modules', '.bin', 'tsc'), 0o755);
  execFileSync('git', ['init', '-q', project]);
  writeFileSync(join(project, '.git', 'info', 'exclude'), '.env\nnode_modules\n');
  // The shipped default policy, with `~` being this scratch HOME (the gate runs in this process).
  policy = join(tree.root, 'policy.yaml');
  writeFileSync(policy, readFileSync(join(REPO, 'config', 'policy.yaml'), 'utf8').replaceAll('"~/', `"${home}/`));
  api = await startMessagesApi(
    KINDS.map((kind) => ({
      marker: `PROJECT-${kind}`,
      steps: [
        [{ name: 'Read', input: { file_path: `${project}/README.md` } }],
        [{ name: 'Bash', input: { command: 'cat ~/.ssh/id_rsa', description: 'x' } }],
        // globs: judged as the files they can match, then run by Claude Code's own shell
        [{ name: 'Bash', input: { command: 'wc -l *.md', description: 'count' } }],
        [{ name: 'Bash', input: { command: 'cat .e*', description: 'x' } }],
        [{ name: 'Bash', input: { command: COMMIT, description: 'commit' } }],
        // run as `npx --yes=false tsc --noEmit` (the hook's updatedInput): only the installed copy runs
        [{ name: 'Bash', input: { command: 'npx tsc --noEmit', description: 'typecheck' } }],
      ],
    })),
  );
  running = await startServer({ home: oracleHome, policy, port: 0, hookBudgetMs: 5000 });
}, 120_000);

afterAll(async () => {
  await running.close().catch(() => undefined);
  await api.close();
  tree.dispose();
});

describe.each(KINDS)('the real Claude Code CLI with the %s hook in a project’s personal settings', (kind) => {
  it('runs the hook from .claude/settings.local.json, which git ignores, in the scope the running gate took at once', async () => {
    const done = await runOracle(['integrate', 'claude-code', '--project', project, '--home', oracleHome, '--policy', policy, ...(kind === 'http' ? ['--http'] : [])], '', { ...process.env, HOME: home });
    expect(done.code, done.stdout).toBe(0);
    expect(done.stdout).toContain('the running gate reloaded its policy');
    const token = readFileSync(join(oracleHome, 'data', 'hook-claude-code.token'), 'utf8').trim();
    const local = readFileSync(join(project, '.claude', 'settings.local.json'), 'utf8');
    expect(local).toContain(kind === 'http' ? `Bearer ${token}` : 'hook claude-code --home');
    expect(existsSync(join(project, '.claude', 'settings.json'))).toBe(false);
    expect(existsSync(join(home, '.claude', 'settings.json'))).toBe(false);
    execFileSync('git', ['-C', project, 'add', '-A']);
    // (README.md is staged until the first run's scripted commit; the settings never are.)
    expect(execFileSync('git', ['-C', project, 'diff', '--cached', '--name-only'], { encoding: 'utf8' })).not.toContain('.claude');

    const calls = auditRecords(oracleHome).length;
    const run = await runClaude({ cwd: project, home, api: api.url, prompt: `PROJECT-${kind}: do the scripted steps`, mode: 'bypassPermissions', timeoutMs: 90_000 });
    expect(run.code, run.stderr).toBe(0);
    const results = api.results(`PROJECT-${kind}`);
    expect(results.map((r) => [r.name, r.isError])).toEqual([
      ['Read', false],
      ['Bash', true],
      ['Bash', false],
      ['Bash', true],
      ['Bash', false],
      ['Bash', false],
    ]);
    // The commit ran unasked (T1), with the here-document's text as its message.
    expect(execFileSync('git', ['-C', project, 'log', '-1', '--format=%B'], { encoding: 'utf8' }).trim()).toBe(MESSAGE);
    expect(results[0]?.content).toContain('# app');
    expect(results[1]?.content).toContain('ORACLE');
    expect(results[1]?.content).not.toContain(CANARY);
    // `wc -l *.md` ran (both files counted); `cat .e*` reached .env and was refused unrun
    expect(results[2]?.content).toMatch(/2 NOTES\.md/u);
    expect(results[2]?.content).toContain('README.md');
    expect(results[3]?.content).toContain('ORACLE');
    expect(results[3]?.content).not.toContain(ENV_CANARY);
    // Claude Code ran the command the hook answered with, not the one the model wrote.
    expect(results[5]?.content).toContain('LOCAL-TSC --noEmit download-refused=yes');
    // Both calls reached the gate through the hook Claude Code read from settings.local.json.
    const answered = auditRecords(oracleHome).slice(calls).filter((r) => r['tool'] === 'agent.call');
    expect(answered.map((r) => r['decision'])).toEqual(expect.arrayContaining(['allow', 'deny']));
  }, 120_000);
});
