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
    // The gate says what it stopped, not the -1 the CLI wrote (red team, session 33).
    expect(log.find((r) => r.kind === 'halt')?.detail).toMatchObject({ reason: 'the agent is looping', running_processes: 2, in_flight: [expect.any(String), expect.any(String)] });

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

/**
 * A job stopped in its first milliseconds (an MCP cancel right after the call, a HALT as it
 * starts): the outer bwrap can die before its inner process, which has left the job's process
 * group (--new-session), has set its parent-death signal. The whole tree must die anyway.
 */
describe.runIf(process.platform === 'linux')('a job stopped as it starts', () => {
  let tree: TempTree;
  let runtime: Runtime;

  beforeAll(async () => {
    tree = tempTree('oracle-early-stop-');
    tree.dir('projects/app');
    runtime = await runtimeFor(tree, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprograms:\n  sleep: { allow_args_matching: ["*"] }\n`);
  });
  afterAll(async () => {
    await runtime.close();
    tree.dispose();
  });

  it('leaves nothing running, its sandbox included, however early it was withdrawn', async () => {
    const seconds = `319.${String(process.pid)}`;
    for (let i = 0; i < 40; i++) {
      const abort = new AbortController();
      const run = runtime.submit({ tool: 'exec.run', args: { program: 'sleep', args: [seconds], cwd: `${tree.root}/projects/app` } }, 0, undefined, abort.signal);
      // The moment the job's first process exists, then a quarter of a millisecond more each round:
      // somewhere in there bwrap has cloned its inner process and not yet set its parent-death signal.
      while (runtime.toolhost.supervisor.live === 0) await new Promise((r) => setImmediate(r));
      for (const end = performance.now() + i * 0.25; performance.now() < end; );
      abort.abort();
      expect((await within(run, 10_000, 'the withdrawn job ended')).error?.code).toBe('CANCELLED');
    }
    expect(await until(() => procs(`sleep ${seconds}`).length === 0, 3000), 'no sleep of any round survived').toBe(true);
  }, 60_000);
});
