import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decide } from '../server/core/decide/decide.js';
import { testContext } from '../tests/fixtures/context.js';
import { memoryReader, type MemoryNode } from '../tests/fixtures/memory-fs.js';
import { summarize, type Figure } from './stats.js';

/**
 * decide() under the shipped default policy on a corpus of 10,000 realistic actions (SPEC §14:
 * p99 under 50 µs excluding file-system resolution, so links are read from memory). The Cedar
 * reference the SPEC asks for beside it is not built yet; this figure stands alone until it is.
 */
const CORPUS = 10_000;
const HOME = '/home/u';
const APP = `${HOME}/projects/app`;

export function decideBench(): Figure[] {
  const corpus = actions(CORPUS);
  const nodes: Record<string, MemoryNode> = {};
  for (const a of corpus) {
    const path = a.args['path'];
    if (typeof path === 'string') nodes[path] = 'file';
  }
  const ctx = testContext(readFileSync(join(import.meta.dirname, '..', 'config', 'policy.yaml'), 'utf8'), {
    reader: memoryReader(nodes),
    userHome: HOME,
    pins: { git: '/usr/bin/git', npm: '/usr/bin/npm', python3: '/usr/bin/python3', node: '/usr/bin/node' },
  });
  for (const a of corpus.slice(0, 500)) decide(a, ctx); // warm up
  const samples: number[] = [];
  const counts = new Map<string, number>();
  const started = process.hrtime.bigint();
  for (const a of corpus) {
    const t = process.hrtime.bigint();
    const d = decide(a, ctx);
    samples.push(Number(process.hrtime.bigint() - t) / 1000);
    counts.set(d.decision, (counts.get(d.decision) ?? 0) + 1);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const mix = [...counts].map(([k, v]) => `${k} ${String(v)}`).join(', ');
  return [{ ...summarize(`decide(): default policy, ${String(CORPUS)} actions (${mix})`, samples), per_second: Math.round(CORPUS / seconds) }];
}

interface Action {
  readonly tool: string;
  readonly args: Record<string, unknown>;
}

/** A deterministic mix shaped like a coding session: mostly reads, then writes, runs and a few refusals. */
function actions(count: number): Action[] {
  let seed = 42;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const file = () => `${APP}/${pick(['src', 'src/lib', 'tests', 'docs'])}/${pick(['index', 'util', 'api', 'model', 'view'])}${String(Math.floor(next() * 40))}.${pick(['ts', 'md', 'json'])}`;
  const out: Action[] = [];
  for (let i = 0; i < count; i++) {
    const r = next();
    if (r < 0.45) out.push({ tool: 'fs.read', args: { path: file() } });
    else if (r < 0.55) out.push({ tool: 'fs.list', args: { path: `${APP}/${pick(['src', 'tests', 'docs'])}` } });
    else if (r < 0.7) out.push({ tool: 'fs.write', args: { path: file(), content: 'export const x = 1;\n' } });
    else if (r < 0.73) out.push({ tool: 'fs.delete', args: { path: file() } });
    else if (r < 0.85) out.push({ tool: 'exec.run', args: { ...pick([{ program: 'git', args: ['status'] }, { program: 'npm', args: ['test'] }, { program: 'python3', args: ['-m', 'pytest', '-q'] }, { program: 'git', args: ['push', '--force'] }]), cwd: APP } });
    else if (r < 0.93) out.push({ tool: 'net.fetch', args: { url: pick(['https://registry.npmjs.org/react', 'https://pypi.org/simple/requests/', 'https://evil.example/x']), method: 'GET' } });
    else out.push({ tool: 'fs.read', args: { path: pick([`${HOME}/.ssh/id_rsa`, `${APP}/.env`, `${HOME}/.aws/credentials`, '/etc/shadow']) } });
  }
  return out;
}
