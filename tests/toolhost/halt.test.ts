import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../server/app/runtime.js';
import type { AuditRecord } from '../../server/core/audit/record.js';
import { runOracle } from '../cli/run-oracle.js';
import { until, within } from '../fixtures/processes.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { processesWith, runtimeFor } from './runtime-fixture.js';

const procs = (marker: string) => processesWith(marker, (p) => readFileSync(p, 'utf8'), () => readdirSync('/proc'));

/** HALT under a running workload (SPEC §8, §15), sent from another process as a person would. */
describe('HALT', () => {
  let tree: TempTree;
  let runtime: Runtime;
  let policy = '';
  const workload = (marker: string) => ({ tool: 'exec.run', args: { program: 'sh', args: ['-c', `${marker} & ${marker} & (setsid ${marker} &); wait`], cwd: `${tree.root}/projects/app`, timeout: 600 } });
  const read = { tool: 'fs.read', args: { path: '' } };

  beforeAll(async () => {
    tree = tempTree('oracle-halt-');
    tree.file('projects/app/a.txt', 'a');
    read.args.path = `${tree.root}/projects/app/a.txt`;
    policy = `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprograms:\n  sh: { allow_args_matching: ["-c *"] }\n`;
    runtime = await runtimeFor(tree, policy);
  });
  afterAll(async () => {
    await runtime.close();
    tree.dispose();
  });

  it('from `oracle halt` in another process: kills every process tree, denies everything, audits, survives a restart, lifts only on resume', async () => {
    const marker = `sleep 317.${String(process.pid)}`;
    const running = [runtime.run(workload(marker)), runtime.run(workload(marker))];
    expect(await until(() => procs(marker).length >= 6, 10_000), 'both workloads run three sleeps each').toBe(true);

    const home = runtime.gate.home;
    const halt = await runOracle(['halt', '--reason', 'the agent is looping', '--home', home]);
    expect(halt.stdout).toContain('HALT sent to the running gate');
    // Each job runs `sleep 317`: it ends within the deadline only because HALT killed it.
    const results = await within(Promise.all(running), 10_000, 'the running jobs ended after HALT');
    expect(results.map((r) => r.error?.code)).toEqual(['HALTED', 'HALTED']);
    expect(await until(() => procs(marker).length === 0, 10_000), 'every process of both workloads is gone, the setsid one included').toBe(true);
    expect(runtime.mode()).toBe('halted');
    expect(await runtime.run(read)).toMatchObject({ decision: 'deny', code: 'HALTED', executed: false });

    const log = readdirSync(join(home, 'logs', 'audit')).flatMap((f) => readFileSync(join(home, 'logs', 'audit', f), 'utf8').trimEnd().split('\n')).map((l) => JSON.parse(l) as AuditRecord);
    expect(log.find((r) => r.kind === 'halt')?.detail).toMatchObject({ reason: 'the agent is looping' });

    // Restart: still halted.
    await runtime.close();
    runtime = await runtimeFor(tree, policy);
    expect(runtime.mode()).toBe('halted');
    expect((await runtime.run(read)).code).toBe('HALTED');
    await runtime.close();

    // Only an explicit resume lifts it (here with no gate running: the CLI records it itself).
    const resume = await runOracle(['resume', '--home', home]);
    expect(resume.stdout).toBe('resumed\n');
    runtime = await runtimeFor(tree, policy);
    expect(runtime.mode()).toBe('normal');
    expect(await runtime.run(read)).toMatchObject({ decision: 'allow', executed: true });
  });

  it('cannot be lifted by a phone or an agent', async () => {
    await runtime.halt('test', 'desktop');
    expect(await runtime.resume('device:phone-1')).toBe(false);
    expect(runtime.mode()).toBe('halted');
    expect(await runtime.resume('desktop')).toBe(true);
  });

  it('refuses a second gate on the same home (one audit chain)', async () => {
    await expect(runtimeFor(tree, policy)).rejects.toThrow(/another ORACLE process/u);
  });
});
