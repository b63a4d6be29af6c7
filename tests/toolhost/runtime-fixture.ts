import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openRuntime, type Runtime } from '../../server/app/runtime.js';
import type { TempTree } from '../fixtures/temp-tree.js';

/** A real runtime (gate, toolhost, audit log) over a temp tree, with its own home and policy. */
export async function runtimeFor(
  tree: TempTree,
  policy: string,
  options: { readonly path?: string; readonly resolve?: (host: string) => Promise<string[]>; readonly extraEnv?: NodeJS.ProcessEnv; readonly home?: string } = {},
): Promise<Runtime> {
  const file = join(tree.root, `${options.home ?? 'home'}-policy.yaml`);
  writeFileSync(file, policy);
  const env = { ...process.env, ...options.extraEnv, PATH: options.path ?? process.env['PATH'] ?? '/usr/bin:/bin' };
  return openRuntime({ home: tree.dir(options.home ?? 'home'), policy: file, env, actor: 'test', ...(options.resolve === undefined ? {} : { resolve: options.resolve }) });
}

/** Host PIDs whose command line contains `marker` (to prove process trees are gone). */
export function processesWith(marker: string, read: (path: string) => string, list: () => string[]): number[] {
  const out: number[] = [];
  for (const entry of list()) {
    if (!/^\d+$/u.test(entry)) continue;
    try {
      if (read(`/proc/${entry}/cmdline`).split('\0').join(' ').includes(marker)) out.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}
