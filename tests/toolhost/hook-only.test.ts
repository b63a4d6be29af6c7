import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openRuntime } from '../../server/app/runtime.js';
import { tempTree } from '../fixtures/temp-tree.js';

/**
 * The runtime a headless hook opens (`runs: false`): it judges and audits Claude Code's calls but
 * probes no sandbox, opens no secret store and spawns nothing, so it must also run nothing: an
 * action that reaches its boundary is refused, never executed without the isolation it skipped.
 */
describe('a runtime that only answers hooks', () => {
  const tree = tempTree('oracle-hook-only-');
  afterAll(() => {
    tree.dispose();
  });

  it('decides as usual and refuses to execute anything', async () => {
    tree.file('projects/app/a.txt', 'a');
    const policy = join(tree.root, 'policy.yaml');
    writeFileSync(policy, `scopes:\n  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }\nprograms:\n  ls: { allow_args_matching: ["*"] }\n`);
    const runtime = await openRuntime({ home: tree.dir('home'), policy, actor: 'hook', runs: false });
    try {
      expect(runtime.toolhost.sandbox).toMatchObject({ kind: 'none', reason: expect.stringContaining('not probed') as unknown });
      expect(runtime.toolhost.env.secrets).toBeUndefined();
      const read = await runtime.run({ tool: 'fs.read', args: { path: `${tree.root}/projects/app/a.txt` } });
      expect(read).toMatchObject({ decision: 'allow', executed: true, error: { code: 'EXECUTOR_UNAVAILABLE' } });
      expect(read.output).toBeUndefined();
      expect(read.stdout).toBeUndefined();
      const exec = await runtime.run({ tool: 'exec.run', args: { program: 'ls', args: [], cwd: `${tree.root}/projects/app` } });
      expect(exec.error?.code).toBe('EXECUTOR_UNAVAILABLE');
      expect(exec.stdout).toBeUndefined();
    } finally {
      await runtime.close();
    }
  });
});
