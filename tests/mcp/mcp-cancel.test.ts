import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from '../../server/main.js';
import { runningWith, until } from '../fixtures/processes.js';
import { auditRecords } from '../fixtures/audit-records.js';
import { mcpHost } from '../fixtures/mcp-host.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { runOracle } from '../cli/run-oracle.js';

/** A `sleep` with this many seconds is ours: nothing else on the machine sleeps that long. */
const marker = (n: number): string => String(86_000 + n);
/** The terminal record of the exec.run whose preview names `seconds`, once there is one. */
const terminalOf = (home: string, seconds: string): Record<string, unknown> | undefined => {
  const records = auditRecords(home);
  const dispatched = records.find((r) => r['kind'] === 'dispatched' && r['tool'] === 'exec.run' && String(r['args_preview']).includes(seconds));
  const id = dispatched?.['action_id'];
  return records.find((r) => r['action_id'] === id && ['succeeded', 'failed', 'cancelled', 'interrupted'].includes(String(r['kind'])));
};

/**
 * A cancelled MCP call (`notifications/cancelled`), and a host that goes away mid-call, withdraw the
 * action (issue 13): its job's process group dies and its terminal record is `cancelled`, never a
 * `succeeded` written after the fact nor a `dispatched` left open.
 */
describe.runIf(process.platform === 'linux')('cancelling an MCP call', () => {
  let tree: TempTree;
  let policy = '';
  let app = '';

  beforeAll(() => {
    tree = tempTree('oracle-mcp-cancel-');
    app = tree.dir('projects/app');
    policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprograms:\n  sleep: { allow_args_matching: ["*"] }\nprincipals:\n  agents:\n    mcp: { capabilities: [fs.read, proc.spawn] }\n`);
  });
  afterAll(() => {
    tree.dispose();
  });

  const cases: { name: string; gate: boolean }[] = [
    { name: 'its own gate', gate: false },
    { name: 'a client of the running gate', gate: true },
  ];
  for (const [i, c] of cases.entries()) {
    describe(`oracle mcp as ${c.name}`, () => {
      const home = (): string => join(tree.root, `home-${String(i)}`);
      let running: Running | undefined;
      let client: Client;

      beforeAll(async () => {
        if (c.gate) running = await startServer({ home: home(), policy, port: 0 });
        ({ client } = await mcpHost(['--home', home(), ...(c.gate ? [] : ['--policy', policy])]));
      });
      afterAll(async () => {
        await client.close();
        await running?.close();
      });

      it('kills the job of a cancelled call and records it as cancelled', async () => {
        const seconds = marker(i * 2);
        const abort = new AbortController();
        const call = client.callTool({ name: 'exec_run', arguments: { program: 'sleep', args: [seconds], cwd: app } }, undefined, { signal: abort.signal });
        expect(await until(() => runningWith(seconds), 10_000), 'the job started').toBe(true);
        abort.abort('the user pressed escape');
        await expect(call).rejects.toThrow();
        expect(await until(() => !runningWith(seconds), 5000), 'the job was killed').toBe(true);
        expect(await until(() => terminalOf(home(), seconds) !== undefined, 5000)).toBe(true);
        expect(terminalOf(home(), seconds)).toMatchObject({ kind: 'cancelled', outcome: 'CANCELLED' });
      }, 30_000);

      it('withdraws what runs when the host goes away', async () => {
        const seconds = marker(i * 2 + 1);
        const call = client.callTool({ name: 'exec_run', arguments: { program: 'sleep', args: [seconds], cwd: app } }).catch(() => undefined);
        expect(await until(() => runningWith(seconds), 10_000), 'the job started').toBe(true);
        await client.close();
        await call;
        expect(await until(() => !runningWith(seconds), 8000), 'the job was killed').toBe(true);
        expect(await until(() => terminalOf(home(), seconds) !== undefined, 8000)).toBe(true);
        expect(terminalOf(home(), seconds)).toMatchObject({ kind: 'cancelled' });
        const verify = await runOracle(['audit', 'verify', '--home', home()]);
        expect(verify.code, verify.stdout).toBe(0);
      }, 40_000);
    });
  }
});
