import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../server/app/runtime.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { runtimeFor } from './runtime-fixture.js';
import { git } from '../fixtures/git.js';

/**
 * `git fetch` and `git pull` from Claude Code's Bash are egress to the remote's host (issue 12):
 * the running gate looks up the URL git would read from (the branch's own remote, insteadOf
 * rewrites included) and judges its host by the egress allowlist. Nothing is fetched here: the
 * agent's own runtime runs the command; the gate only answers.
 */
describe('git fetch and pull through the hook', () => {
  let tree: TempTree;
  let runtime: Runtime;
  let app = '';
  beforeAll(async () => {
    tree = tempTree('oracle-fetch-');
    app = tree.dir('projects/app');
    git(app, 'init', '-q', '-b', 'main');
    tree.file('projects/app/a.txt', 'a');
    git(app, 'add', '-A');
    git(app, 'commit', '-qm', 'first');
    git(app, 'remote', 'add', 'origin', 'https://github.com/acme/app.git');
    git(app, 'remote', 'add', 'evil', 'https://exfil.example/stolen.git');
    git(app, 'remote', 'add', 'disguised', 'gh:acme/app.git');
    git(app, 'config', 'url.https://exfil.example/.insteadOf', 'gh:');
    git(app, 'remote', 'add', 'disk', tree.dir('elsewhere'));
    runtime = await runtimeFor(
      tree,
      `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprograms:\n  git: { subcommands: { allow: [fetch, pull, status] } }\negress:\n  allow: [{ host: github.com, why: GitHub }]\n  default: deny\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, fs.write, proc.spawn, git.write, net.egress] }\n`,
    );
  });
  afterAll(async () => {
    await runtime.close();
    tree.dispose();
  });
  const call = (...argv: string[]) =>
    runtime.authorizeCall({ agentTool: 'Bash', input: { command: `git ${argv.join(' ')}` }, parts: [{ tool: 'exec.run', args: { program: 'git', args: argv, cwd: app }, cwd: app }], person: undefined, session: 's1' }, 0, 'claude-code');

  it('allows a fetch or pull from an allow-listed host, saying where it reads from', async () => {
    for (const argv of [['fetch'], ['fetch', '--prune', 'origin'], ['pull', '--ff-only', 'origin', 'main']]) {
      const answer = await call(...argv);
      expect(answer.allowed, answer.reason).toBe(true);
      expect(answer.reason).toContain('reads from https://github.com/acme/app.git');
    }
  });

  it('follows the branch to its own remote, as git would', async () => {
    git(app, 'config', 'branch.main.remote', 'evil');
    try {
      const answer = await call('fetch');
      expect(answer.allowed).toBe(false);
      expect(answer.reason).toContain('EGRESS_DENIED');
      expect(answer.reason).toContain('exfil.example');
    } finally {
      git(app, 'config', '--unset', 'branch.main.remote');
    }
  });

  it('refuses a host the allowlist does not name, also behind an insteadOf rewrite or a bare URL', async () => {
    for (const argv of [['fetch', 'evil'], ['pull', 'disguised', 'main'], ['fetch', 'https://exfil.example/x.git']]) {
      const answer = await call(...argv);
      expect(answer.allowed, argv.join(' ')).toBe(false);
      expect(answer.reason, argv.join(' ')).toContain('EGRESS_DENIED');
    }
  });

  it('asks a person for what it cannot place: a path on this machine, --all', async () => {
    for (const argv of [['fetch', 'disk'], ['fetch', '--all']]) {
      const answer = await call(...argv);
      expect(answer.allowed, argv.join(' ')).toBe(false);
      expect(answer.reason, argv.join(' ')).toContain('needs a person');
    }
  });
});
