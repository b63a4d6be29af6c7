import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORACLE_BIN, runOracle } from '../cli/run-oracle.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * A gate that stops answering (here: SIGSTOP, as a wedged or swapped-out process would) is not
 * waited for to the end of a hook's budget: the command hook looks at the gate's health while it
 * waits, and after two unanswered looks it denies, saying so (fault probe, session 37: 110 s per
 * Claude Code call). Through the built command and a real `oracle serve`.
 */
describe('a frozen gate', () => {
  let tree: TempTree;
  let home = '';
  let policy = '';
  let app = '';
  let gate: ChildProcess | undefined;
  beforeAll(async () => {
    tree = tempTree('oracle-frozen-');
    home = tree.dir('home');
    app = tree.dir('projects/app');
    tree.file('projects/app/a.txt', 'a\n');
    policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, fs.write, proc.spawn] }\n`);
    // The hook's credential, then the gate, a process of its own.
    expect((await runOracle(['integrate', 'claude-code', '--project', app, '--home', home, '--policy', policy])).code).toBe(0);
    const child = spawn(process.execPath, [ORACLE_BIN, 'serve', '--port', '0', '--home', home, '--policy', policy], { stdio: ['ignore', 'pipe', 'pipe'] });
    gate = child;
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (b: Buffer) => {
        out += b.toString();
        if (/listening on https:/u.test(out)) resolve();
      });
      child.on('exit', (code) => {
        reject(new Error(`oracle serve exited ${String(code)}: ${out}`));
      });
    });
  }, 60_000);
  afterAll(() => {
    gate?.kill('SIGCONT');
    gate?.kill('SIGKILL');
    tree.dispose();
  });

  const read = () => runOracle(['hook', 'claude-code', '--home', home, '--policy', policy], JSON.stringify({ session_id: 's', cwd: app, hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: join(app, 'a.txt') } }));

  it('is given up on after two unanswered looks at its health, with a reason; answered again once it runs', async () => {
    const live = await read();
    expect(JSON.parse(live.stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'allow' } });
    gate?.kill('SIGSTOP');
    const frozen = await read();
    gate?.kill('SIGCONT');
    const answer = JSON.parse(frozen.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    expect(answer.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(answer.hookSpecificOutput.permissionDecisionReason).toContain('the gate stopped answering');
    // (Only the watch says that; the hook's own budget, over 100 s, would end in "did not answer in time".)
    const again = await read();
    expect(JSON.parse(again.stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'allow' } });
  }, 60_000);
});
