import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { runningWith, until } from '../fixtures/processes.js';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { readProcessTable } from '../../server/adapters/process-table.js';
import { GATE_META_KEY } from '../../server/mcp/result.js';
import { runOracle } from '../cli/run-oracle.js';
import { auditRecords } from '../fixtures/audit-records.js';
import { mcpHost, textOf } from '../fixtures/mcp-host.js';
import { pairScriptedPhone, type ScriptedPhone } from '../fixtures/scripted-phone.js';
import { startStandInAgent, type StandInAgent } from '../fixtures/stand-in-agent.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

const actionOf = (result: unknown): string => String(((result as { _meta?: Record<string, { action_id?: string }> })._meta?.[GATE_META_KEY] ?? {}).action_id);

/**
 * One gate per machine (issue 13), end to end: `oracle serve` is the gate; two MCP hosts (the
 * official SDK's client, each its own `oracle mcp` process) and an agent that runs its own tools
 * through the command hook (a stand-in for Claude Code) all use it at once. A T2 call from one MCP
 * host is approved from the phone and its result returns to that host. A HALT from the phone kills
 * a running exec of each MCP host and the stand-in agent's own tool child, refuses what they ask
 * next, and the audit log verifies and holds every action once.
 */
describe.runIf(process.platform === 'linux')('one gate, many agents', () => {
  let tree: TempTree;
  let home = '';
  let app = '';
  let gate: Running;
  let phone: ScriptedPhone;
  let agent: StandInAgent;
  const hosts: Client[] = [];

  beforeAll(async () => {
    tree = tempTree('oracle-one-gate-');
    home = tree.dir('home');
    app = tree.dir('projects/app');
    writeFileSync(join(app, 'a.txt'), 'shared file\n');
    writeFileSync(join(app, 'old.txt'), 'to delete\n');
    const policy = join(tree.root, 'policy.yaml');
    writeFileSync(
      policy,
      `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprograms:\n  sleep: { allow_args_matching: ["*"] }\n` +
        'principals:\n  agents:\n    mcp: { capabilities: [fs.read, fs.write, fs.delete, proc.spawn] }\n    claude-code: { capabilities: [fs.read, fs.write, proc.spawn] }\n',
    );
    gate = await startServer({ home, policy, port: 0 });
    const integrated = await runOracle(['integrate', 'claude-code', '--project', app, '--home', home, '--policy', policy]);
    expect(integrated.code, integrated.stderr).toBe(0);
    const ca = readFileSync(join(home, 'certs', 'ca.crt'), 'utf8');
    phone = await pairScriptedPhone({ url: gate.url, ca, desktopToken: gate.desktop.localToken });
    for (const host of await Promise.all([mcpHost(['--home', home, '--wait', '30']), mcpHost(['--home', home, '--wait', '30'])])) hosts.push(host.client);
    agent = await startStandInAgent({ home, url: gate.url, ca, token: readFileSync(join(home, 'data', 'hook-claude-code.token'), 'utf8').trim() });
  }, 60_000);
  afterAll(async () => {
    agent.stop();
    for (const host of hosts) await host.close();
    await gate.close();
    tree.dispose();
  });

  const [first, second] = [() => hosts[0] as Client, () => hosts[1] as Client];
  const bash = (command: string) => ({ via: 'command' as const, payload: { session_id: 'stand-in', cwd: app, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } } });
  const ids: string[] = [];

  it('serves both MCP hosts and the hook at once, on one audit chain', async () => {
    const [a, b, hook] = await Promise.all([
      first().callTool({ name: 'fs_read', arguments: { path: join(app, 'a.txt') } }),
      second().callTool({ name: 'fs_read', arguments: { path: join(app, 'a.txt') } }),
      agent.ask({ via: 'command', payload: { session_id: 'stand-in', cwd: app, hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: join(app, 'a.txt') } } }),
    ]);
    expect(textOf(a)).toBe('shared file\n');
    expect(textOf(b)).toBe('shared file\n');
    expect(hook?.permissionDecision).toBe('allow');
    ids.push(actionOf(a), actionOf(b));
  }, 30_000);

  it('asks the phone about a T2 call from one MCP host and returns the approved result to it', async () => {
    const deleting = first().callTool({ name: 'fs_delete', arguments: { path: join(app, 'old.txt') } });
    const card = await phone.card('fs.delete');
    expect(card.tier).toBe('T2');
    expect((await phone.approve(card)).status).toBe(200);
    const result = await deleting;
    expect(result.isError, textOf(result)).not.toBe(true);
    expect(existsSync(join(app, 'old.txt'))).toBe(false);
    ids.push(actionOf(result));
  }, 40_000);

  it('HALT from the phone kills a running exec of each MCP host and the agent’s own tool child', async () => {
    // Durations unique to this run, so a sleep left over from an earlier, failed run is not taken for one of these.
    const unique = 100_000 + (process.pid % 50_000) * 3;
    const [sleepA, sleepB, sleepHook] = [unique, unique + 1, unique + 2].map(String) as [string, string, string];
    const execA = first().callTool({ name: 'exec_run', arguments: { program: 'sleep', args: [sleepA], cwd: app } });
    const execB = second().callTool({ name: 'exec_run', arguments: { program: 'sleep', args: [sleepB], cwd: app } });
    const allowed = await agent.ask(bash(`sleep ${sleepHook}`));
    expect(allowed?.permissionDecision, allowed?.permissionDecisionReason).toBe('allow');
    await agent.runTool(Number(sleepHook));
    expect(await until(() => runningWith(sleepA) && runningWith(sleepB) && runningWith(sleepHook), 15_000), 'all three are running').toBe(true);

    expect((await phone.halt('e2e: stop everything')).status).toBe(200);
    expect(await until(() => !runningWith(sleepA) && !runningWith(sleepB) && !runningWith(sleepHook), 3000), 'all three are dead').toBe(true);
    for (const result of await Promise.all([execA, execB])) {
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('HALTED');
      ids.push(actionOf(result));
    }
    // The agent itself lives on, so its person sees what happened; what it asks next is refused.
    expect(readProcessTable()?.has(agent.pid)).toBe(true);
    expect((await agent.ask(bash('sleep 1')))?.permissionDecision).toBe('deny');
    const refused = await second().callTool({ name: 'fs_read', arguments: { path: join(app, 'a.txt') } });
    expect(textOf(refused)).toContain('HALTED');
  }, 60_000);

  it('keeps one verified audit chain with every action once', async () => {
    const verify = await runOracle(['audit', 'verify', '--home', home]);
    expect(verify.code, verify.stdout).toBe(0);
    const records = auditRecords(home);
    const byAction = new Map<string, Record<string, unknown>[]>();
    for (const r of records) {
      const id = r['action_id'];
      if (typeof id !== 'string') continue;
      byAction.set(id, [...(byAction.get(id) ?? []), r]);
    }
    for (const id of ids) expect(byAction.has(id), id).toBe(true);
    for (const [id, list] of byAction) {
      const kinds = list.map((r) => String(r['kind']));
      expect(kinds.filter((k) => k === 'decision').length, `${id}: ${kinds.join(',')}`).toBe(1);
      const terminal = kinds.filter((k) => ['succeeded', 'failed', 'cancelled', 'interrupted'].includes(k)).length;
      expect(terminal, `${id}: ${kinds.join(',')}`).toBe(kinds.includes('dispatched') ? 1 : 0);
    }
    const halt = records.filter((r) => r['kind'] === 'halt').at(-1);
    expect(halt?.['detail']).toMatchObject({ reason: 'e2e: stop everything', agent_processes: { supported: true } });
  });
});
