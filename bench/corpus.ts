import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DecideContext } from '../server/core/decide/context.js';
import { testContext } from '../tests/fixtures/context.js';
import { linkTable } from './link-table.js';

/**
 * The request corpus both policy engines are measured on (SPEC §14): 10,000 deterministic
 * actions shaped like a coding session under the shipped default policy.
 */
export const HOME = '/home/u';
export const APP = `${HOME}/projects/app`;
/** Where ORACLE's own home is in the bench (always denied, SPEC §3). */
export const ORACLE_HOME = '/var/oracle-home';
export const PINS: Readonly<Record<string, string>> = { git: '/usr/bin/git', npm: '/usr/bin/npm', python3: '/usr/bin/python3', node: '/usr/bin/node' };

export interface Action {
  readonly tool: string;
  readonly args: Record<string, unknown>;
}

export interface Corpus {
  readonly actions: readonly Action[];
  /** The default policy compiled as the gate compiles it, resolving against the link table. */
  readonly ctx: DecideContext;
  readonly policyText: string;
}

export function corpus(count: number): Corpus {
  const actions = session(count);
  const files = actions.map((a) => a.args['path']).filter((p): p is string => typeof p === 'string');
  const policyText = readFileSync(join(import.meta.dirname, '..', 'config', 'policy.yaml'), 'utf8');
  const ctx = testContext(policyText, { reader: linkTable(files), userHome: HOME, oracleHome: ORACLE_HOME, pins: PINS });
  return { actions, ctx, policyText };
}

/** A deterministic mix shaped like a coding session: mostly reads, then writes, runs and a few refusals. */
function session(count: number): Action[] {
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
