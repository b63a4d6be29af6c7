import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../server/app/runtime.js';
import { cannotMountTmpfs, mountTmpfs, skipping, unmount } from '../fixtures/privileges.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { runtimeFor } from '../toolhost/runtime-fixture.js';

/**
 * SPEC §7: an audit write that fails denies the action; a full disk never lets anything through,
 * and once space is back the log takes records again by itself (issue 14), with a repair record.
 */
describe.skipIf(skipping('a full audit disk', cannotMountTmpfs()))('a full audit disk', () => {
  let tree: TempTree;
  let runtime: Runtime | undefined;
  let mounted = '';
  beforeAll(() => {
    tree = tempTree('oracle-full-');
    tree.dir('projects/app');
    mounted = join(tree.root, 'home', 'logs', 'audit');
    mkdirSync(mounted, { recursive: true });
    mountTmpfs(mounted, '64k');
  });
  afterAll(async () => {
    await runtime?.close().catch(() => undefined);
    unmount(mounted);
    tree.dispose();
  });

  it('runs nothing while the log cannot be written, and runs again once it can', async () => {
    runtime = await runtimeFor(tree, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\n`);
    // Fill what is left of the 64 KiB.
    spawnSync('dd', ['if=/dev/zero', `of=${join(mounted, 'filler')}`, 'bs=1k', 'count=64']);
    // The log's last page still has room: act until the disk is really full, then check that
    // the action whose record could not be written did not run, nor anything after it.
    let failedAt = -1;
    for (let i = 0; i < 200 && failedAt === -1; i++) {
      const result = await runtime.run({ tool: 'fs.write', args: { path: `${tree.root}/projects/app/f${String(i)}.txt`, content: 'x' } });
      if (!result.executed) {
        expect(result).toMatchObject({ decision: 'allow', error: { code: 'AUDIT_WRITE_FAILED' } });
        failedAt = i;
      }
    }
    expect(failedAt).toBeGreaterThanOrEqual(0);
    expect(existsSync(`${tree.root}/projects/app/f${String(failedAt)}.txt`)).toBe(false);
    const target = `${tree.root}/projects/app/while-full.txt`;
    expect(await runtime.run({ tool: 'fs.write', args: { path: target, content: 'not while full' } })).toMatchObject({ executed: false, error: { code: 'AUDIT_WRITE_FAILED' } });
    expect(existsSync(target)).toBe(false);
    expect(runtime.status()).toMatchObject({ mode: 'degraded', audit: { reason: expect.stringMatching(/ENOSPC|no space/iu) as unknown } });
    spawnSync('rm', ['-f', join(mounted, 'filler')]);
    for (let i = 0; i < 50 && runtime.status().mode !== 'normal'; i++) await new Promise((r) => setTimeout(r, 100));
    expect(runtime.status()).toMatchObject({ mode: 'normal', audit: undefined });
    const later = `${tree.root}/projects/app/after.txt`;
    expect(await runtime.run({ tool: 'fs.write', args: { path: later, content: 'now' } })).toMatchObject({ executed: true });
    expect(existsSync(`${tree.root}/projects/app/f${String(failedAt)}.txt`)).toBe(false);
    writeFileSync(join(tree.root, 'done'), 'x');
  });
});
