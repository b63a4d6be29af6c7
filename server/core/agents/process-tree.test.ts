import { describe, expect, it } from 'vitest';
import { agentAbove, descendants, isLauncher, isOracleClient, processKey, toolTrees, type ProcessEntry } from './process-tree.js';

const p = (pid: number, ppid: number, uid = 1000, start = `s${String(pid)}`): ProcessEntry => ({ pid, ppid, uid, start });
const table = (...entries: ProcessEntry[]) => new Map(entries.map((e) => [e.pid, e]));

// init 1 ─ terminal 10 ─ agent 20 ─┬ mcp server 30 ─ its worker 31
//                                   ├ hook launcher 40 ─ hook 41 (waiting)
//                                   ├ tool 50 ─ grandchild 51 ─ great 52
//                                   └ root-owned 60 ─ 61
const host = table(p(1, 0, 0), p(10, 1), p(20, 10), p(30, 20), p(31, 30), p(40, 20), p(41, 40), p(50, 20), p(51, 50), p(52, 51), p(60, 20, 0), p(61, 60, 0));
const agent = p(20, 10);

describe('the tool trees HALT kills below an agent', () => {
  it('lists every descendant, parents first', () => {
    expect(descendants(host, 20).map((e) => e.pid)).toEqual([30, 40, 50, 60, 31, 41, 51, 61, 52]);
  });

  it('kills what the agent started after it registered, with their whole trees, and nothing else', () => {
    const before = new Set([processKey(p(30, 20))]);
    const killed = toolTrees(host, { agent, before }, new Set([41])).map((e) => e.pid);
    // The MCP server (there before) and its worker stay; the waiting hook and its launcher stay;
    // another user's processes are never the agent's to lose.
    expect(killed.sort()).toEqual([50, 51, 52]);
  });

  it('spares a waiting client and its launcher, not what else that launcher started (red team, session 33)', () => {
    // tool 50 is `sh -c 'sleep 1001 & oracle hook …'`: 51 the sleep, 52 the client waiting.
    const mixed = table(p(1, 0, 0), p(10, 1), p(20, 10), p(50, 20), p(51, 50), p(52, 50));
    expect(toolTrees(mixed, { agent, before: new Set() }, new Set([52])).map((e) => e.pid)).toEqual([51]);
  });

  it('kills nothing when the agent is gone or its pid was reused', () => {
    expect(toolTrees(table(p(50, 20)), { agent, before: new Set() }, new Set())).toEqual([]);
    const reused = table(p(20, 10, 1000, 'later'), p(50, 20));
    expect(toolTrees(reused, { agent, before: new Set() }, new Set())).toEqual([]);
  });

  it('does not spare a process that only reuses a pid from before', () => {
    const before = new Set([processKey(p(50, 20, 1000, 'earlier'))]);
    expect(toolTrees(host, { agent, before }, new Set()).map((e) => e.pid)).toContain(50);
  });
});

describe('the agent above a client', () => {
  const argv: Record<number, string[]> = {
    20: ['node', '/usr/lib/claude/cli.js'],
    40: ['/bin/sh', '-c', 'oracle hook claude-code || exit 2'],
    41: ['node', '/usr/bin/oracle', 'hook', 'claude-code'],
    30: ['/bin/sh', '-c', 'npx oracle mcp'],
    31: ['node', '/usr/lib/node_modules/npm/bin/npx-cli.js', 'oracle', 'mcp'],
    32: ['node', '/usr/bin/oracle', 'mcp'],
  };
  const chain = table(p(1, 0, 0), p(10, 1), p(20, 10), p(40, 20), p(41, 40), p(30, 20), p(31, 30), p(32, 31));
  const of = (pid: number) => argv[pid];

  it('skips the shell and npx launchers between the agent and the client', () => {
    expect(agentAbove(chain, 41, of)?.pid).toBe(20);
    expect(agentAbove(chain, 32, of)?.pid).toBe(20);
  });

  it('takes the parent as the agent when it is not a launcher', () => {
    expect(agentAbove(table(p(1, 0), p(20, 10), p(10, 1), p(41, 20)), 41, of)?.pid).toBe(20);
  });

  it('never names init, and gives up when a process cannot be read', () => {
    expect(agentAbove(table(p(1, 0), p(41, 1)), 41, of)).toBeUndefined();
    expect(agentAbove(chain, 41, () => undefined)).toBeUndefined();
  });

  it('counts as launcher only a shell -c or npm line that runs oracle', () => {
    expect(isLauncher(['/bin/bash', '-c', 'oracle hook claude-code'])).toBe(true);
    expect(isLauncher(['/bin/bash', 'agent.sh'])).toBe(false);
    expect(isLauncher(['/bin/sh', '-c', 'make test'])).toBe(false);
    expect(isLauncher(['claude', '--mcp-config', 'oracle.json'])).toBe(false);
    // An agent started through npx is the agent, not a launcher of ORACLE.
    expect(isLauncher(['node', '/usr/lib/node_modules/npm/bin/npx-cli.js', 'claude', '--mcp-config', 'oracle.json'])).toBe(false);
    expect(isLauncher(['/bin/sh', '-c', 'node /opt/oracle/dist/server/cli/oracle.js hook claude-code'])).toBe(true);
    // The line `oracle integrate` writes for the command hook (red team, session 33).
    expect(isLauncher(['/bin/sh', '-c', "'/usr/bin/node' '/opt/oracle/dist/hook/oracle-hook.cjs' hook claude-code --home '/home/u/.oracle' || exit 2"])).toBe(true);
    expect(isLauncher(['/bin/sh', '-c', '"/usr/bin/node" "/opt/oracle/dist/hook/oracle-hook.cjs" hook claude-code'])).toBe(true);
    expect(isLauncher(['/bin/sh', '-c', "node '/x/not-oracle-hook.cjs.bak' hook claude-code"])).toBe(false);
    expect(isLauncher(['/bin/bash', '-lc', 'oracle hook claude-code'])).toBe(true);
    expect(isLauncher(['/bin/sh', '-ec', 'oracle mcp --home /h'])).toBe(true);
    expect(isLauncher(['/bin/bash', '--login', 'oracle hook claude-code'])).toBe(false);
    expect(isLauncher([])).toBe(false);
    expect(isOracleClient(['/usr/bin/node', '/opt/oracle/dist/hook/oracle-hook.cjs', 'hook', 'claude-code', '--home', '/h'])).toBe(true);
    expect(isOracleClient(['/usr/bin/node', '/opt/oracle/dist/server/cli/oracle.js', 'mcp', '--home', '/h'])).toBe(true);
    expect(isOracleClient(['bash'])).toBe(false);
    expect(isOracleClient(['vim', 'notes.txt'])).toBe(false);
  });
});
