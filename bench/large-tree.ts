import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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
 *
 * Session 35 adds the gate's own tree actions there: an fs.search through the project (it stops
 * at 20,000 entries) and the decision on an fs.delete of a 30,000-file folder (walked for what
 * the policy hides before anyone is asked; first with nothing kept, then again), and Claude Code's
 * `rm -r` of a 2,000-file folder through the hook (a copy kept for undo first), each with another agent's fs.read running meanwhile,
 * one every 2 ms: the slowest of those reads is what the tree action costs everyone else.
 */
const FOLDERS = 600;
const FILES = 100;
const RUNS = 15;
const OUT_FOLDERS = 300;
const TREE_RUNS = 5;
const BUILD_FOLDERS = 20;
const BUILD_FILE = 'x'.repeat(2000);

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
  // A folder of build output with nothing the policy hides, beside the project: what an agent deletes whole.
  const out = join(root, 'projects', 'output');
  for (let d = 0; d < OUT_FOLDERS; d++) {
    const dir = join(out, `d${String(d)}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < FILES; f++) writeFileSync(join(dir, `f${String(f)}.js`), '');
  }
  // What Claude Code's `rm -r` takes: the gate keeps a copy of it for undo first.
  const build = join(root, 'projects', 'build');
  for (let d = 0; d < BUILD_FOLDERS; d++) {
    const dir = join(build, `d${String(d)}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < FILES; f++) writeFileSync(join(dir, `f${String(f)}.js`), BUILD_FILE);
  }
  mkdirSync(small, { recursive: true });
  for (let f = 0; f < 10; f++) writeFileSync(join(small, `f${String(f)}.ts`), 'export {};\n');
  const policy = join(root, 'policy.yaml');
  writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${root}/projects", mode: rw }] }\ndeny_always: [.env]\nprograms:\n  sh: { allow_args_matching: ["-c *"] }\nprincipals:\n  agents:\n    claude-code: { capabilities: [fs.read, fs.write, fs.delete] }\n`);
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
    const trees = await treeActions(runtime, { large, small, out, build, read: join(small, 'f0.ts') });
    return [
      ...trees,
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

type Runtime = Awaited<ReturnType<typeof openRuntime>>;

/** An action timed, with another agent's reads running meanwhile: how long it took, and the slowest read beside it (µs). */
type TreeAction = { readonly tool: string; readonly args: object } | { readonly tool: 'hook'; readonly call: Parameters<Runtime['authorizeCall']>[0] };

async function beside(runtime: Runtime, action: TreeAction, read: string): Promise<{ took: number; slowest: number }> {
  let slowest = 0;
  const other = { done: false };
  const reads = (async () => {
    while (!other.done) {
      const t = process.hrtime.bigint();
      const r = await runtime.run({ tool: 'fs.read', args: { path: read } });
      if (!r.executed) throw new Error(`the other agent's read did not run: ${JSON.stringify(r)}`);
      slowest = Math.max(slowest, Number(process.hrtime.bigint() - t) / 1000);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  const t = process.hrtime.bigint();
  const result = 'call' in action ? await runtime.authorizeCall(action.call, 0, 'claude-code') : await runtime.run(action);
  const took = Number(process.hrtime.bigint() - t) / 1000;
  other.done = true;
  await reads;
  // A search runs; a delete of a project's folder is a person's call (T2), refused here headless.
  const expected = 'call' in action ? 'allowed' in result && !result.allowed && result.reason.startsWith('T2 needs a person') : 'executed' in result && (action.tool === 'fs.search' ? result.executed : result.error?.code === 'APPROVAL_REQUIRED');
  if (!expected) throw new Error(`the bench's tree action did not do what it should: ${JSON.stringify(result).slice(0, 500)}`);
  return { took, slowest };
}

async function treeActions(runtime: Runtime, at: { large: string; small: string; out: string; build: string; read: string }): Promise<Figure[]> {
  const runs = async (action: TreeAction): Promise<{ took: number[]; slowest: number[] }> => {
    const all = { took: [] as number[], slowest: [] as number[] };
    for (let i = 0; i < TREE_RUNS; i++) {
      const one = await beside(runtime, action, at.read);
      all.took.push(one.took);
      all.slowest.push(one.slowest);
    }
    return all;
  };
  const search = (path: string) => ({ tool: 'fs.search', args: { path, text: 'not in any file' } });
  const searched = await runs(search(at.large));
  const reference = await runs(search(at.small));
  const remove = { tool: 'fs.delete', args: { path: at.out } };
  const first = await beside(runtime, remove, at.read);
  const deleted = await runs(remove);
  // Claude Code's `rm -r build` through the hook: judged, the folder kept for undo, then refused
  // (T2, and no person to ask here), which drops the copy again.
  const rm = { tool: 'hook', call: { agentTool: 'Bash', input: { command: 'rm -r build' }, parts: [{ tool: 'fs.delete', args: { path: at.build }, cwd: dirname(at.build) }], person: undefined, session: 'bench' } } as const;
  const removed = await runs(rm);
  const other = "another agent's fs.read meanwhile, the slowest";
  const searchName = `fs.search in a ${String(FOLDERS * FILES)}-file project (stops at 20,000 entries)`;
  const deleteName = `fs.delete of a ${String(OUT_FOLDERS * FILES)}-file folder, decided (T2, headless: refused once judged)`;
  return [
    summarize(searchName, searched.took),
    summarize(`${searchName}: ${other}`, searched.slowest),
    summarize('fs.search: reference, the same search in a 10-file project', reference.took),
    summarize(`fs.search: reference, ${other}`, reference.slowest),
    summarize(`Claude Code rm -r of a ${String(BUILD_FOLDERS * FILES)}-file folder through the hook (kept for undo, then refused: T2)`, removed.took),
    summarize(`Claude Code rm -r of a ${String(BUILD_FOLDERS * FILES)}-file folder: ${other}`, removed.slowest),
    summarize(`${deleteName}: first (every entry judged)`, [first.took]),
    summarize(`${deleteName}: first, ${other}`, [first.slowest]),
    summarize(`${deleteName}: later (listings kept)`, deleted.took),
    summarize(`${deleteName}: later, ${other}`, deleted.slowest),
  ];
}
