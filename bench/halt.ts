import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRuntime } from '../server/app/runtime.js';
import { processesWith } from '../tests/toolhost/runtime-fixture.js';
import { summarize, type Figure } from './stats.js';

/**
 * HALT with 50 running process trees (SPEC §14, budget 200 ms): from the HALT call until every
 * process of every job is gone and a new action is denied. Beside it the reference: the same 50
 * trees (a parent and two children each) spawned from Node in their own process groups, one
 * signal each, until /proc shows none of them.
 */
const TREES = 50;
const RUNS = 3;
const procs = (marker: string) => processesWith(marker, (p) => readFileSync(p, 'utf8'), () => readdirSync('/proc'));
const script = (marker: string) => `${marker} & ${marker} & wait`;

export async function haltBench(): Promise<Figure[]> {
  const root = mkdtempSync(join(tmpdir(), 'oracle-bench-halt-'));
  const app = join(root, 'projects', 'app');
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, 'a.txt'), 'a');
  const policy = join(root, 'policy.yaml');
  writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${root}/projects", mode: rw }] }\nprograms:\n  sh: { allow_args_matching: ["-c *"] }\n`);
  const runtime = await openRuntime({ home: join(root, 'home'), policy, env: process.env, actor: 'bench' });
  const read = { tool: 'fs.read', args: { path: join(app, 'a.txt') } };
  try {
    const oracle: number[] = [];
    const reference: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const marker = `sleep 421.${String(process.pid)}${String(run)}`;
      const jobs = Array.from({ length: TREES }, () => runtime.run({ tool: 'exec.run', args: { program: 'sh', args: ['-c', script(marker)], cwd: app, timeout: 600 } }));
      await untilAtLeast(marker, TREES * 3);
      const t = process.hrtime.bigint();
      await runtime.halt('bench', 'desktop');
      await untilNone(marker);
      const denied = await runtime.run(read);
      oracle.push(Number(process.hrtime.bigint() - t) / 1000);
      if (denied.code !== 'HALTED') throw new Error(`after HALT an action was not denied: ${JSON.stringify(denied)}`);
      await Promise.all(jobs);
      await runtime.resume('desktop');
      reference.push(await referenceKill(`422.${String(process.pid)}${String(run)}`));
    }
    return [summarize(`HALT: ${String(TREES)} jobs' process trees dead and deny-all in force`, oracle), summarize(`HALT: reference, kill ${String(TREES)} process groups from Node`, reference)];
  } finally {
    await runtime.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/** A parent holding two sleeping children, like the jobs' `sh -c`, started without a shell. */
const TREE = "const { spawn } = require('node:child_process'); const [d] = process.argv.slice(1); spawn('sleep', [d]); spawn('sleep', [d]); setInterval(() => undefined, 1e6);";

async function referenceKill(marker: string): Promise<number> {
  const children = Array.from({ length: TREES }, () => spawn(process.execPath, ['-e', TREE, marker], { detached: true, stdio: 'ignore' }));
  const killAll = () => {
    for (const child of children) {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // that group is already gone
      }
    }
  };
  try {
    await untilAtLeast(marker, TREES * 3);
    const t = process.hrtime.bigint();
    killAll();
    await untilNone(marker);
    return Number(process.hrtime.bigint() - t) / 1000;
  } catch (e) {
    killAll(); // never leave the reference's trees behind
    throw e;
  }
}

async function untilAtLeast(marker: string, count: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (procs(marker).length >= count) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`only ${String(procs(marker).length)} of ${String(count)} processes started`);
}

async function untilNone(marker: string): Promise<void> {
  for (let i = 0; i < 20_000; i++) {
    if (procs(marker).length === 0) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error('processes outlived HALT');
}
