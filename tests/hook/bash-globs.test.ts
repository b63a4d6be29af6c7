import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { runOracle } from '../cli/run-oracle.js';
import { auditRecords } from '../fixtures/audit-records.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * Globs in Claude Code's Bash commands, through the built hook command on a real folder, with
 * no gate and with one running: `cat src/*.ts` is judged as the files it can match (it used to
 * go to a person every time), `.e*` is refused like `.env`, and zsh's `cat .e#nv` (EXTENDED_GLOB)
 * and `cat .{e}nv` (BRACE_CCL), which read .env, are no longer judged as files of those names.
 */
describe('glob arguments in Bash commands', () => {
  let tree: TempTree;
  let home = '';
  let policy = '';
  let app = '';
  let running: Running | undefined;
  beforeAll(() => {
    tree = tempTree('oracle-bash-globs-');
    home = tree.dir('home');
    app = tree.dir('projects/app');
    tree.file('projects/app/src/a.ts', 'export const a = 1;\n');
    tree.file('projects/app/src/b.ts', 'export const b = 2;\n');
    tree.file('projects/app/README.md', '# app\n');
    tree.file('projects/app/.env', 'API_KEY=sk-live-secret-2219\n');
    // Outside every scope, reached through a link in the project.
    tree.file('outside/dir/x', 'x\n');
    tree.file('outside/secret.txt', 'OUTSIDE-CANARY-7731\n');
    symlinkSync(join(tree.root, 'outside/dir'), join(app, 'out'));
    policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\ndeny_always: ["**/.env"]\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, fs.write, proc.spawn] }\n`);
  });
  afterAll(async () => {
    await running?.close();
    tree.dispose();
  });

  const bash = async (command: string) => {
    const run = await runOracle(['hook', 'claude-code', '--home', home, '--policy', policy], JSON.stringify({ session_id: 's', cwd: app, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } }));
    expect(run.code, run.stderr).toBe(0);
    return (JSON.parse(run.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
  };

  it('with no gate: the files a glob matches are judged, each on its own', async () => {
    expect((await bash('cat src/*.ts')).permissionDecision).toBe('allow');
    expect((await bash('head -n 3 *.md src/*.ts')).permissionDecision).toBe('allow');
    const dotted = await bash('cat .e*');
    expect(dotted.permissionDecision).toBe('deny');
    expect(dotted.permissionDecisionReason).toContain('PATH_DENY_ALWAYS');
    // zsh with EXTENDED_GLOB reads .env for `.e#nv`; the literal name does not exist
    const zsh = await bash('cat .e#nv');
    expect(zsh.permissionDecision).toBe('deny');
    expect(zsh.permissionDecisionReason).toContain(`${app}/.env`);
    // `*` reaches .env only where dotglob is on: a person's call (none here, so Claude Code asks)
    const star = await bash('cat *');
    expect(star.permissionDecision).toBe('ask');
    expect(star.permissionDecisionReason).toContain('dotglob');
    // a glob a command does not read alike, as before
    expect((await bash('git add src/*.ts')).permissionDecision).toBe('ask');
    // zsh's BRACE_CCL reads `.{e}nv` as .env: judged as written and as that
    const ccl = await bash('cat .{e}nv');
    expect(ccl.permissionDecision).toBe('deny');
    expect(ccl.permissionDecisionReason).toContain(`${app}/.env`);
    // files another command of the line may create are not in the folder read now
    expect((await bash('touch ./--files0-from=L && sort -*')).permissionDecision).toBe('ask');
    // a `~` bash keeps in the word, and one shells expand differently
    expect((await bash("mkdir 'src~' && cat src~/../.e*")).permissionDecision).toBe('ask');
    expect((await bash('cat a:~/x')).permissionDecision).toBe('ask');
    // words tree-sitter splits where a shell does not
    expect((await bash('cat src]\\a.ts')).permissionDecision).toBe('ask');
  });

  it('with no gate: what the shell would read elsewhere is never judged as a name here', async () => {
    // zsh closes `[!]` at once and lets a bracket hold a `/`: both read .env there (checked with zsh)
    expect((await bash('cat .[!]nv')).permissionDecision).toBe('ask');
    expect((await bash('cat .en[v/]')).permissionDecision).toBe('ask');
    // the shell passes every match of a glob given as an option's value, or as ln's only operand
    expect((await bash('touch -r src/*.ts README.md')).permissionDecision).toBe('ask');
    expect((await bash('ln -sf src/*.ts')).permissionDecision).toBe('ask');
    // `..` after a link is the link target's parent for the kernel, outside every scope
    for (const command of ['cat out/../secret.txt', 'cd out/.. && cat *', 'cd out && cat ../secret.txt']) {
      const climbed = await bash(command);
      expect(climbed.permissionDecision, command).toBe('deny');
      expect(climbed.permissionDecisionReason).toContain(`the system reads it as \`${join(tree.root, 'outside')}/`);
    }
    // through plain folders `..` is what it always was
    expect((await bash('cat src/../README.md')).permissionDecision).toBe('allow');
  });

  it('with no gate: awk reads the files a glob matches, and a glob is never its program', async () => {
    expect((await bash("awk '{print $1}' src/*.ts | sort | uniq -c")).permissionDecision).toBe('allow');
    expect((await bash("awk '{print}' .e*")).permissionDecision).toBe('deny');
    // The shell would make the first name the program text: a file the agent named as a program.
    tree.file('projects/app/prog/BEGIN{system("touch PWNED")}', '');
    const program = await bash('awk prog/* README.md');
    expect(program.permissionDecision).not.toBe('allow');
    expect((await bash("awk 'BEGIN { system(\"touch PWNED\") }'")).permissionDecision).toBe('ask');
  });

  it('with a gate running: the same judgement, each matched file in the audit log', async () => {
    expect((await runOracle(['integrate', 'claude-code', '--project', app, '--home', home, '--policy', policy])).code).toBe(0);
    running = await startServer({ home, policy, port: 0 });
    const counted = await bash('wc -l src/*.ts');
    expect(counted.permissionDecision, counted.permissionDecisionReason).toBe('allow');
    const reads = auditRecords(home)
      .filter((r) => r['tool'] === 'fs.read' && r['decision'] === 'allow')
      .map((r) => JSON.stringify(r));
    for (const file of ['src/a.ts', 'src/b.ts']) expect(reads.some((r) => r.includes(join(app, file)))).toBe(true);
    expect((await bash('cat .e#nv')).permissionDecision).toBe('deny');
  });
});
