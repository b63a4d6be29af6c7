import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOracle } from '../cli/run-oracle.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * Globs in Claude Code's Bash commands, through the built hook command on a real folder, with
 * no gate: every glob is a person's call, and zsh's `cat .e#nv`, which reads
 * .env under EXTENDED_GLOB, is no longer judged as a file of that literal name (it was allowed).
 */
describe('glob arguments in Bash commands', () => {
  let tree: TempTree;
  let home = '';
  let policy = '';
  let app = '';
  beforeAll(() => {
    tree = tempTree('oracle-bash-globs-');
    home = tree.dir('home');
    app = tree.dir('projects/app');
    tree.file('projects/app/src/a.ts', 'export const a = 1;\n');
    tree.file('projects/app/src/b.ts', 'export const b = 2;\n');
    tree.file('projects/app/README.md', '# app\n');
    tree.file('projects/app/.env', 'API_KEY=sk-live-secret-2219\n');
    policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\ndeny_always: ["**/.env"]\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, fs.write, proc.spawn] }\n`);
  });
  afterAll(() => {
    tree.dispose();
  });

  const bash = async (command: string) => {
    const run = await runOracle(['hook', 'claude-code', '--home', home, '--policy', policy], JSON.stringify({ session_id: 's', cwd: app, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } }));
    expect(run.code, run.stderr).toBe(0);
    return (JSON.parse(run.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
  };

  it('with no gate: a glob is a person’s call (Claude Code asks), zsh’s `.e#nv` and `=ls` included', async () => {
    for (const command of ['cat src/*.ts', 'cat .e*', 'cat .e#nv', 'git show HEAD^', 'cat =ls', 'cat f<1-3>.txt']) {
      const answer = await bash(command);
      expect(answer.permissionDecision, command).toBe('ask');
    }
    // a literal path is judged as before
    expect((await bash('cat src/a.ts')).permissionDecision).toBe('allow');
    expect((await bash('cat .env')).permissionDecision).toBe('deny');
  });
});
