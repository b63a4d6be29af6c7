import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluate } from '../server/core/decide/decide.js';
import { loadGatePolicy } from '../server/app/gate-policy.js';
import { measure, summarize, type Figure } from './stats.js';

/**
 * What a decision costs as the policy grows (issue 14: with 10,000 deny_always globs or 10,000
 * scope roots at most 2× the cost with 100), on the real gate over a real file system, in one
 * run. The globs are of the kinds people write (names, extensions, prefixes, anchored folders,
 * nested paths); the actions read and write inside the scopes, some onto denied names.
 */
const SIZES = [100, 10_000] as const;
const RUNS = 20_000;

export async function scaleBench(): Promise<Figure[]> {
  const root = mkdtempSync(join(tmpdir(), 'oracle-bench-scale-'));
  try {
    const figures: Figure[] = [];
    for (const n of SIZES) figures.push(await decisions(root, `globs-${String(n)}`, { globs: n, roots: 1 }, `decision: ${String(n)} deny_always globs`));
    for (const n of SIZES) {
      const t = process.hrtime.bigint();
      figures.push(await decisions(root, `roots-${String(n)}`, { globs: 10, roots: n }, `decision: ${String(n)} scope roots`));
      if (n === SIZES[1]) figures.push(summarize(`policy with ${String(n)} scope roots: load, compile and ${String(RUNS)} decisions`, [Number(process.hrtime.bigint() - t) / 1000]));
    }
    return figures;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
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

function decisions(base: string, name: string, size: { readonly globs: number; readonly roots: number }, label: string): Promise<Figure> {
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
  return measure(label, RUNS, () => {
    const judged = evaluate(actions[i++ % actions.length], gate.context);
    if (judged.decision.decision === 'allow') allowed += 1;
    return allowed;
  });
}
