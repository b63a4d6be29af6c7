import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempTree, type TempTree } from '../../tests/fixtures/temp-tree.js';
import { loadGatePolicy } from './gate-policy.js';

describe.skipIf(process.platform === 'win32')('what the gate says at start about its pins (`oracle serve`, `oracle policy check`)', () => {
  let tree: TempTree;
  beforeEach(() => {
    tree = tempTree('oracle-gate-pins-');
  });
  afterEach(() => {
    tree.dispose();
  });

  const gate = (path: string) => {
    const policy = tree.file('policy.yaml', `scopes:\n  projects: { roots: [{ path: "${tree.root}", mode: ro }] }\nprograms:\n  git: { subcommands: { allow: [status] } }\n`);
    return loadGatePolicy({ home: tree.dir('home'), policy, env: { PATH: path } });
  };
  const git = (dir: string): string => {
    const path = join(tree.dir(dir), 'git');
    writeFileSync(path, '#!/bin/sh\n');
    chmodSync(path, 0o755);
    return path;
  };

  it('warns that a git in npm’s node_modules/.bin was passed over for the one it pinned', () => {
    const planted = git('node_modules/.bin');
    const safe = git('usr/bin');
    const state = gate(`${join(tree.root, 'node_modules/.bin')}:${join(tree.root, 'usr/bin')}`);
    expect(state.context.pins.get('git')).toMatchObject({ ok: true, path: safe });
    expect(state.warnings).toContainEqual(`programs.git: pinned to \`${safe}\`, not to \`${planted}\` (\`${join(tree.root, 'node_modules/.bin')}\` is a package manager's folder)`);
  });

  it('warns that git is not pinned when the only one is where others can change it, and says nothing when all is well', () => {
    git('open');
    chmodSync(join(tree.root, 'open'), 0o777);
    const refused = gate(join(tree.root, 'open'));
    expect(refused.context.pins.get('git')?.ok).toBe(false);
    expect(refused.warnings.filter((w) => w.startsWith('programs.git: not pinned: `git` is on PATH only where it may not be pinned'))).toHaveLength(1);
    chmodSync(join(tree.root, 'open'), 0o755);
    expect(gate(join(tree.root, 'open')).warnings.filter((w) => w.startsWith('programs'))).toEqual([]);
  });

  it('says once which listed programs this machine does not have, and that a declared path is no program', () => {
    const missing = gate(tree.dir('empty'));
    expect(missing.warnings.filter((w) => w.startsWith('programs'))).toEqual(['programs git: not on PATH, so agents cannot run it (install, then restart the gate)']);
    const policy = tree.file('declared.yaml', `scopes:\n  projects: { roots: [{ path: "${tree.root}", mode: ro }] }\nprograms:\n  git: { path: "${join(tree.root, 'nothing')}", subcommands: { allow: [status] } }\n`);
    const declared = loadGatePolicy({ home: tree.dir('home'), policy, env: { PATH: '' } });
    expect(declared.warnings).toContainEqual(`programs.git: not pinned: \`${join(tree.root, 'nothing')}\` is not an executable file`);
  });
});
