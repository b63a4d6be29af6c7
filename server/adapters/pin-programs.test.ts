import { chmodSync, chownSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempTree, type TempTree } from '../../tests/fixtures/temp-tree.js';
import type { ProgramRule } from '../core/policy/types.js';
import { pinOne, pinPrograms } from './pin-programs.js';

/** A uid that is neither root nor the gate's user (`nobody` on most systems). */
const OTHER = 65534;
const posix = process.platform !== 'win32';
const root = process.getuid?.() === 0;

describe.skipIf(!posix)('pinning a program from PATH (SPEC §6)', () => {
  let tree: TempTree;
  beforeEach(() => {
    tree = tempTree('oracle-pin-');
  });
  afterEach(() => {
    tree.dispose();
  });

  /** An executable `name` in `dir` (made 0755 unless given), with the dir's own mode. */
  const program = (dir: string, name = 'git', mode = 0o755): string => {
    const path = tree.file(join(dir, name), '#!/bin/sh\n');
    chmodSync(path, mode);
    chmodSync(join(tree.root, dir), 0o755);
    return path;
  };
  const pin = (...dirs: string[]) => pinOne('git', undefined, { path: dirs.map((d) => join(tree.root, d)).join(':'), platform: process.platform });

  it('pins a safe git from PATH, as before', () => {
    const safe = program('safe');
    expect(pin('safe')).toEqual({ ok: true, path: safe });
  });

  it('never pins a git from a package manager’s folder earlier on PATH (npm’s node_modules/.bin of a parent, npx’s cache, node-gyp-bin)', () => {
    program('tmp/node_modules/.bin');
    program('npm/_npx/6913fdfd/node_modules/.bin');
    program('npm/node_modules/@npmcli/run-script/lib/node-gyp-bin');
    const safe = program('usr/bin');
    const pinned = pin('tmp/node_modules/.bin', 'npm/_npx/6913fdfd/node_modules/.bin', 'npm/node_modules/@npmcli/run-script/lib/node-gyp-bin', 'usr/bin');
    expect(pinned.ok && pinned.path).toBe(safe);
    expect(pinned.skipped).toHaveLength(3);
    expect(pinned.skipped?.[0]).toContain(`\`${join(tree.root, 'tmp/node_modules/.bin/git')}\``);
    expect(pinned.skipped?.[0]).toContain('a package manager');
  });

  it('says truthfully why a program found only in a package manager’s folder is not pinned', () => {
    program('project/node_modules/.bin', 'claude');
    const pinned = pinOne('claude', undefined, { path: join(tree.root, 'project/node_modules/.bin'), platform: process.platform });
    expect(pinned.ok).toBe(false);
    expect(!pinned.ok && pinned.reason).toMatch(/^`claude` is on PATH only where it may not be pinned: .*node_modules\/\.bin\/claude` \(.*is a package manager's folder\)$/u);
  });

  it('says `not on PATH` only when it is not on PATH', () => {
    tree.dir('empty');
    expect(pin('empty')).toEqual({ ok: false, reason: '`git` is not on PATH', absent: true });
  });

  it('skips a git in a folder others can write, and pins the safe one later on PATH', () => {
    program('open');
    chmodSync(join(tree.root, 'open'), 0o777);
    const safe = program('safe');
    const pinned = pin('open', 'safe');
    expect(pinned.ok && pinned.path).toBe(safe);
    expect(pinned.skipped).toEqual([`\`${join(tree.root, 'open/git')}\` (\`${join(tree.root, 'open')}\` is writable by group and others)`]);
  });

  it('skips a git under a folder higher up that its group can write', () => {
    program('shared/bin');
    chmodSync(join(tree.root, 'shared'), 0o775);
    expect(pin('shared/bin')).toMatchObject({ ok: false, reason: expect.stringContaining(`\`${join(tree.root, 'shared')}\` is writable by its group`) as unknown });
  });

  it('skips a git others can write itself', () => {
    program('bin', 'git', 0o757);
    expect(pin('bin')).toMatchObject({ ok: false, reason: expect.stringContaining('is writable by others') as unknown });
  });

  it('accepts a root-owned sticky folder on the way (/tmp), where others may add names but not replace ours', () => {
    tree.dir('sticky');
    chmodSync(join(tree.root, 'sticky'), 0o1777);
    const safe = program('sticky/mine');
    chmodSync(join(tree.root, 'sticky'), 0o1777);
    expect(pin('sticky/mine')).toEqual({ ok: true, path: safe });
  });

  it('skips a git reached through a link in a folder others can write (they choose what runs)', () => {
    const real = program('safe', 'sh');
    tree.dir('open');
    symlinkSync(real, join(tree.root, 'open/git'));
    chmodSync(join(tree.root, 'open'), 0o777);
    expect(pin('open').ok).toBe(false);
  });

  it('skips a safe-looking link that leads into a folder others can write', () => {
    program('open');
    chmodSync(join(tree.root, 'open'), 0o777);
    tree.dir('safe');
    symlinkSync(join(tree.root, 'open/git'), join(tree.root, 'safe/git'));
    expect(pin('safe')).toMatchObject({ ok: false, reason: expect.stringContaining(`\`${join(tree.root, 'open')}\` is writable`) as unknown });
  });

  it('pins the real file behind a link whose whole way is safe', () => {
    const real = program('lib', 'git-2.43');
    tree.dir('bin');
    symlinkSync('../lib/git-2.43', join(tree.root, 'bin/git'));
    expect(pin('bin')).toEqual({ ok: true, path: real });
  });

  describe.skipIf(!root)('owners (as root, with a foreign uid)', () => {
    it('skips a git in a folder another uid owns, and pins the safe one later on PATH', () => {
      program('foreign');
      chownSync(join(tree.root, 'foreign'), OTHER, OTHER);
      const safe = program('safe');
      const pinned = pin('foreign', 'safe');
      expect(pinned.ok && pinned.path).toBe(safe);
      expect(pinned.skipped).toEqual([`\`${join(tree.root, 'foreign/git')}\` (\`${join(tree.root, 'foreign')}\` is owned by uid ${String(OTHER)})`]);
    });

    it('skips a git file another uid owns', () => {
      chownSync(program('bin'), OTHER, OTHER);
      expect(pin('bin')).toMatchObject({ ok: false, reason: expect.stringContaining(`is owned by uid ${String(OTHER)}`) as unknown });
    });

    it('accepts what the gate’s own user owns', () => {
      const mine = program('mine');
      chownSync(mine, OTHER, OTHER);
      chownSync(join(tree.root, 'mine'), OTHER, OTHER);
      expect(pinOne('git', undefined, { path: join(tree.root, 'mine'), platform: process.platform, uid: OTHER })).toEqual({ ok: true, path: mine });
    });

    it('gives a declared `path:` the same check, failing that program’s pin with the reason', () => {
      const foreign = program('foreign');
      chownSync(join(tree.root, 'foreign'), OTHER, OTHER);
      const safe = program('safe');
      const rule = (name: string, path: string): ProgramRule => ({ name, path, allow: [], confirm: [], deny: [], argPatterns: [], otherwise: undefined, rule: `programs.${name}` });
      const pins = pinPrograms(
        new Map([
          ['git', rule('git', foreign)],
          ['tool', rule('tool', safe)],
        ]),
        { path: '', platform: process.platform },
      );
      expect(pins.get('git')).toMatchObject({ ok: false, reason: `\`${foreign}\` may not be pinned: \`${join(tree.root, 'foreign')}\` is owned by uid ${String(OTHER)}` });
      expect(pins.get('tool')).toEqual({ ok: true, path: safe });
    });
  });
});
