import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluate } from '../server/core/decide/decide.js';
import { loadGatePolicy } from '../server/app/gate-policy.js';
import { percentiles, summarize, type Figure } from './stats.js';

/**
 * What a decision costs as the policy grows (issue 14: with 10,000 deny_always globs or 10,000
 * scope roots at most 2× the cost with 100), on the real gate over a real file system, in one
 * run. The globs are of the kinds people write (names, extensions, prefixes, anchored folders,
 * nested paths); the actions read and write inside the scopes, some onto denied names.
 */
const SIZES = [100, 10_000] as const;
const RUNS = 20_000;
/** The two sizes alternate in blocks of this many decisions, so both see the same machine (GC, neighbours). */
const BLOCK = 500;

export function scaleBench(): Figure[] {
  const root = mkdtempSync(join(tmpdir(), 'oracle-bench-scale-'));
  try {
    const globs = SIZES.map((n) => judge(root, `globs-${String(n)}`, { globs: n, roots: 1 }));
    const figures = interleaved(globs, SIZES.map((n) => `decision: ${String(n)} deny_always globs`));
    const t = process.hrtime.bigint();
    const roots = SIZES.map((n) => judge(root, `roots-${String(n)}`, { globs: 10, roots: n }));
    const compiled = Number(process.hrtime.bigint() - t) / 1000;
    figures.push(...interleaved(roots, SIZES.map((n) => `decision: ${String(n)} scope roots`)));
    figures.push(summarize(`policies with ${SIZES.join(' and ')} scope roots: written, loaded and compiled`, [compiled]));
    return figures;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** RUNS decisions of each judge, alternating in blocks after a warm-up of each; one figure each. */
function interleaved(judges: readonly (() => unknown)[], labels: readonly string[]): Figure[] {
  for (const once of judges) for (let i = 0; i < BLOCK; i++) once();
  const samples = judges.map((): number[] => []);
  for (let done = 0; done < RUNS; done += BLOCK) {
    judges.forEach((once, k) => {
      for (let i = 0; i < BLOCK; i++) {
        const t = process.hrtime.bigint();
        once();
        samples[k]?.push(Number(process.hrtime.bigint() - t) / 1000);
      }
    });
  }
  return samples.map((s, k) => {
    const total = s.reduce((a, b) => a + b, 0);
    return { name: labels[k] ?? '', runs: s.length, ...percentiles(s), per_second: Math.round((1e6 * s.length) / total) };
  });
}

function denyGlob(i: number): string {
  switch (i % 5) {
    case 0:
      return `secret-${String(i)}`;
    case 1:
      return `*.ext${String(i)}`;
    case 2:
      return `cache${String(i)}*`;
    case 3:
      return `/etc/app${String(i)}/**`;
    default:
      return `build${String(i)}/out`;
  }
}

/** One decision at a time on a gate with that many globs and roots (a new action each call). */
function judge(base: string, name: string, size: { readonly globs: number; readonly roots: number }): () => number {
  const dir = join(base, name);
  const projects = join(dir, 'projects');
  for (let r = 0; r < size.roots; r++) mkdirSync(join(projects, `p${String(r)}`, 'src'), { recursive: true });
  const roots = Array.from({ length: size.roots }, (_, r) => `      - { path: "${join(projects, `p${String(r)}`)}", mode: rw }`).join('\n');
  const globs = Array.from({ length: size.globs }, (_, i) => `  - "${denyGlob(i)}"`).join('\n');
  const policy = join(dir, 'policy.yaml');
  writeFileSync(policy, `scopes:\n  projects:\n    roots:\n${roots}\ndeny_always:\n  - ".env"\n${globs}\n`);
  const gate = loadGatePolicy({ home: join(dir, 'home'), policy, env: process.env });
  if (gate.mode !== 'normal') throw new Error(`the bench policy did not load: ${JSON.stringify(gate.errors.slice(0, 2))}`);
  const actions = Array.from({ length: 1000 }, (_, i) => {
    const project = join(projects, `p${String((i * 7919) % size.roots)}`);
    const file = i % 10 === 0 ? '.env' : i % 10 === 1 ? `secret-${String(i % size.globs)}` : `src/file${String(i)}.ts`;
    return { tool: i % 3 === 0 ? 'fs.write' : 'fs.read', args: i % 3 === 0 ? { path: join(project, file), content: 'x' } : { path: join(project, file) } };
  });
  let i = 0;
  let allowed = 0;
  return () => {
    const judged = evaluate(actions[i++ % actions.length], gate.context);
    if (judged.decision.decision === 'allow') allowed += 1;
    return allowed;
  };
}
