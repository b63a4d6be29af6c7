import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATE_META_KEY } from '../../server/mcp/result.js';
import type { Running } from '../../server/main.js';
import { auditRecords } from '../fixtures/audit-records.js';
import { gateAndHost, textOf } from '../fixtures/mcp-host.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';

const actionId = (result: unknown): unknown => (result as { _meta?: Record<string, Record<string, unknown> | undefined> })._meta?.[GATE_META_KEY]?.['action_id'];

/**
 * A program the policy does not list can never be started by ORACLE's own exec.run (only listed
 * programs are pinned). With `programs.default: confirm` an MCP call for one had become a card,
 * and the approved action then failed: it is refused at once, saying what to do instead.
 */
describe('oracle mcp: a program ORACLE could never start', () => {
  let tree: TempTree;
  let running: Running;
  let client: Client;

  beforeAll(async () => {
    tree = tempTree('oracle-mcp-unlisted-');
    const app = tree.dir('projects/app');
    ({ running, client } = await gateAndHost(tree, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprograms:\n  default: confirm\n  git: { subcommands: { allow: [status] } }\nprincipals:\n  agents:\n    mcp: { capabilities: [fs.read, fs.write, proc.spawn] }\n`, app));
  });
  afterAll(async () => {
    await client.close();
    await running.close();
    tree.dispose();
  });

  const decisionOf = (result: unknown): Record<string, unknown> | undefined => auditRecords(running.runtime.gate.home).find((r) => r['action_id'] === actionId(result) && r['kind'] === 'decision');

  it('refuses an unlisted program before anyone is asked, pointing at the fs tools and the policy', async () => {
    const ran = await client.callTool({ name: 'exec_run', arguments: { program: 'ls', args: ['-la'] } });
    expect(ran.isError).toBe(true);
    expect(textOf(ran)).toMatch(/PROGRAM_UNKNOWN/u);
    expect(textOf(ran)).toMatch(/`ls` is not in the policy's program list, so ORACLE cannot run it.*fs tools.*add `ls` under `programs:`/u);
    expect(decisionOf(ran)).toMatchObject({ decision: 'deny', code: 'PROGRAM_UNKNOWN' });
    expect(running.runtime.desk.list()).toEqual([]);
  });

  it('says a program name with its arguments in it is two things', async () => {
    const ran = await client.callTool({ name: 'exec_run', arguments: { program: 'git status' } });
    expect(textOf(ran)).toMatch(/`git status` is not a program name: name the program alone \(`git`\) and put the rest in `args`/u);
    expect(running.runtime.desk.list()).toEqual([]);
  });

  it('still runs a listed program, and tells the agent other programs are refused', async () => {
    const ran = await client.callTool({ name: 'exec_run', arguments: { program: 'git', args: ['status'] } });
    expect(decisionOf(ran)).toMatchObject({ decision: 'allow' });
    const allowed = await client.callTool({ name: 'oracle_allowed', arguments: {} });
    expect(allowed.structuredContent).toMatchObject({ other_programs: 'deny' });
  });
});
