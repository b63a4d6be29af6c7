import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openRuntime } from '../server/app/runtime.js';
import { RACY_MS } from '../server/adapters/agent/dir-listings.js';
import { summarize, type Figure } from './stats.js';

/**
 * exec.run in a large project (session 34): before a job its tree is walked for masks and
 * planted-name candidates, and after it again; each walk judges every entry by the policy. The
 * first job in a 60,000-file project (nothing kept), later jobs there (folders' listings kept
 * while unchanged), and the reference, the same job in a 10-file project; and for each, the
 * longest the gate's event loop was held during the job (every other agent waits that long).
 */
const FOLDERS = 600;
const FILES = 100;
const RUNS = 15;

export async function largeTreeBench(): Promise<Figure[]> {
  const root = mkdtempSync(join(tmpdir(), 'oracle-bench-tree-'));
  const large = join(root, 'projects', 'large');
  const small = join(root, 'projects', 'small');
  for (let d = 0; d < FOLDERS; d++) {
    const dir = join(large, 'src', `d${String(d)}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < FILES; f++) writeFileSync(join(dir, `f${String(f)}.ts`), 'export {};\n');
    if (d % 100 === 0) writeFileSync(join(dir, '.env'), 'SECRET=1\n');
  }
  mkdirSync(small, { recursive: true });
  for (let f = 0; f < 10; f++) writeFileSync(join(small, `f${String(f)}.ts`), 'export {};\n');
  const policy = join(root, 'policy.yaml');
  writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${root}/projects", mode: rw }] }\ndeny_always: [.env]\nprograms:\n  sh: { allow_args_matching: ["-c *"] }\n`);
  const runtime = await openRuntime({ home: join(root, 'home'), policy, env: process.env, actor: 'bench' });
  // A folder changed in the last RACY_MS is never kept: a project being edited this second is
  // judged afresh, one untouched for a while is not.
  await new Promise((r) => setTimeout(r, RACY_MS + 500));
  const held: Record<'first' | 'warm' | 'reference', number[]> = { first: [], warm: [], reference: [] };
  const job = async (cwd: string, kind: keyof typeof held): Promise<number> => {
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    const t = process.hrtime.bigint();
    const r = await runtime.run({ tool: 'exec.run', args: { program: 'sh', args: ['-c', ':'], cwd } });
    const took = Number(process.hrtime.bigint() - t) / 1000;
    loop.disable();
    held[kind].push(loop.max / 1000);
    if (!r.executed || r.exit_code !== 0) throw new Error(`the bench job did not run: ${JSON.stringify(r)}`);
    return took;
  };
  try {
    const first = [await job(large, 'first')];
    const warm: number[] = [];
    const reference: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      warm.push(await job(large, 'warm'));
      reference.push(await job(small, 'reference'));
    }
    const name = `exec.run sh -c : in a ${String(FOLDERS * FILES)}-file project`;
    const stall = 'the longest the event loop was held';
    return [
      summarize(`${name}: first job (every entry judged)`, first),
      summarize(`${name}: later jobs (listings kept)`, warm),
      summarize('exec.run sh -c :: reference, the same job in a 10-file project', reference),
      summarize(`${name}: first job, ${stall}`, held.first),
      summarize(`${name}: later jobs, ${stall}`, held.warm),
      summarize(`exec.run sh -c :: reference, ${stall}`, held.reference),
    ];
  } finally {
    await runtime.close();
    rmSync(root, { recursive: true, force: true });
  }
}
