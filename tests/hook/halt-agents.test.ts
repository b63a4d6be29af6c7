import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { descendants } from '../../server/core/agents/process-tree.js';
import { readProcessTable } from '../../server/adapters/process-table.js';
import { alive, until } from '../fixtures/processes.js';
import { runOracle } from '../cli/run-oracle.js';
import { auditRecords } from '../fixtures/audit-records.js';
import { pairScriptedPhone, type ScriptedPhone } from '../fixtures/scripted-phone.js';
import { startStandInAgent, type StandInAgent } from '../fixtures/stand-in-agent.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

/**
 * HALT reaches what agents started (SPEC §8 (2), issue 13): an agent that runs its own tools
 * (Claude Code) asks through the command hook or the http hook, then runs the allowed command as
 * its own child, which starts a child of its own. A HALT from a paired phone kills that whole tree
 * (not the agent, not what the agent had running before it first asked), and the agent's next call
 * is refused until the desktop resumes.
 */
describe.runIf(process.platform === 'linux')('HALT and the agents’ own processes', () => {
  let tree: TempTree;
  let home = '';
  let app = '';
  let running: Running;
  let phone: ScriptedPhone;
  let ca = '';
  let token = '';
  const agents: StandInAgent[] = [];

  beforeAll(async () => {
    tree = tempTree('oracle-halt-agents-');
    home = tree.dir('home');
    app = tree.dir('projects/app');
    const policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprograms:\n  sleep: {}\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, fs.write, proc.spawn] }\n`);
    running = await startServer({ home, policy, port: 0 });
    const integrated = await runOracle(['integrate', 'claude-code', '--project', app, '--home', home, '--policy', policy]);
    expect(integrated.code, integrated.stderr).toBe(0);
    ca = readFileSync(join(home, 'certs', 'ca.crt'), 'utf8');
    token = readFileSync(join(home, 'data', 'hook-claude-code.token'), 'utf8').trim();
    phone = await pairScriptedPhone({ url: running.url, ca, desktopToken: running.desktop.localToken });
  });
  afterEach(async () => {
    for (const agent of agents.splice(0)) agent.stop();
    await running.runtime.resume('desktop');
  });
  afterAll(async () => {
    await running.close();
    tree.dispose();
  });

  const bash = (session: string, command: string) => ({ session_id: session, cwd: app, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } });

  for (const via of ['command', 'http'] as const) {
    it(`kills the tool tree of an agent that asked through the ${via} hook, and refuses its next call`, async () => {
      const agent = await startStandInAgent({ home, url: running.url, ca, token });
      agents.push(agent);
      const allowed = await agent.ask({ via, payload: bash(`s-${via}`, 'sleep 300') });
      expect(allowed?.permissionDecision, allowed?.permissionDecisionReason).toBe('allow');
      const tool = await agent.runTool(300);
      let grandchild: number | undefined;
      expect(await until(() => (grandchild = readProcessTable()?.get(tool) === undefined ? undefined : descendants(readProcessTable() ?? new Map(), tool)[0]?.pid) !== undefined, 5000), 'the tool started its child').toBe(true);

      const halted = await phone.halt(`test via ${via}`);
      expect(halted.status, JSON.stringify(halted.body)).toBe(200);
      // The whole tool tree is gone at once; the agent and what it ran before asking are not.
      expect(await until(() => !alive(tool) && grandchild !== undefined && !alive(grandchild), 5000), 'the tool and its child are dead after HALT').toBe(true);
      expect(alive(agent.pid)).toBe(true);
      expect(alive(agent.helper)).toBe(true);
      const halt = auditRecords(home).filter((r) => r['kind'] === 'halt').at(-1);
      expect(halt?.['detail']).toMatchObject({ reason: `test via ${via}`, agent_processes: { supported: true, killed: 2 } });

      const refused = await agent.ask({ via, payload: bash(`s-${via}`, 'sleep 1') });
      expect(refused?.permissionDecision).toBe('deny');
      expect(refused?.permissionDecisionReason).toMatch(/halt/iu);
    }, 30_000);
  }

  it('removes at resume the index.lock of a git it killed, while nobody took the lock since', async () => {
    const repo = tree.dir('projects/app/repo');
    const git = (...args: string[]) => { expect(spawnSync('git', args, { cwd: repo }).status).toBe(0); };
    git('init', '-q');
    writeFileSync(join(repo, 'f.txt'), 'x\n');
    // A clean filter that takes its time: git holds the index's lock while it runs.
    writeFileSync(join(repo, '.gitattributes'), '* filter=slow\n');
    const agent = await startStandInAgent({ home, url: running.url, ca, token });
    agents.push(agent);
    expect((await agent.ask({ via: 'command', payload: bash('s-git', 'sleep 1') }))?.permissionDecision).toBe('allow');
    const tool = await agent.runGit(repo, ['-c', 'filter.slow.clean=sleep 60; cat', 'add', 'f.txt']);
    const lock = join(repo, '.git', 'index.lock');
    expect(await until(() => existsSync(lock), 5000), 'git took the lock').toBe(true);
    expect((await phone.halt('git mid-add')).status).toBe(200);
    expect(await until(() => !alive(tool), 5000)).toBe(true);
    // SIGKILL: git could not remove it; every later git there would fail on it.
    expect(existsSync(lock)).toBe(true);
    const halt = auditRecords(home).filter((r) => r['kind'] === 'halt').at(-1);
    expect(halt?.['detail']).toMatchObject({ git_locks: [{ path: lock }] });
    await running.runtime.resume('desktop');
    expect(existsSync(lock)).toBe(false);
    expect(auditRecords(home).filter((r) => r['kind'] === 'resume').at(-1)?.['detail']).toEqual({ removed_git_locks: [lock] });
    expect(spawnSync('git', ['status'], { cwd: repo }).status).toBe(0);
  }, 30_000);

  it('leaves an agent that never asked alone', async () => {
    const agent = await startStandInAgent({ home, url: running.url, ca, token });
    agents.push(agent);
    const tool = await agent.runTool(300);
    await phone.halt('an agent that never reached the gate');
    // The gate signals before it answers and records what it killed: nothing, and the tool runs on.
    const halt = auditRecords(home).filter((r) => r['kind'] === 'halt').at(-1);
    expect(halt?.['detail']).toMatchObject({ reason: 'an agent that never reached the gate', agent_processes: { supported: true, killed: 0 } });
    expect(alive(tool)).toBe(true);
    for (const p of [tool, ...descendants(readProcessTable() ?? new Map(), tool).map((d) => d.pid)]) process.kill(p, 'SIGKILL');
  }, 30_000);
});
