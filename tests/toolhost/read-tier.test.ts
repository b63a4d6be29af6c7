import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../server/app/runtime.js';
import { tempTree, type TempTree } from '../fixtures/temp-tree.js';
import { runtimeFor } from './runtime-fixture.js';

/**
 * A tier rule that makes reading some files a person's call holds for every way of reading them
 * (red team, session 33): fs.search printed a line of such a file at T0, whether fs.replace applied
 * told what it held, and a job's sandbox showed it. fs.read itself asks.
 */
describe('a file whose read needs a person', () => {
  let tree: TempTree;
  let runtime: Runtime;
  let app = '';

  beforeAll(async () => {
    tree = tempTree('oracle-read-tier-');
    app = tree.dir('projects/app');
    tree.file('projects/app/private/notes.txt', 'pin=4711\n');
    tree.file('projects/app/public.txt', 'pin=public\n');
    const policy = [
      'scopes:',
      `  projects: { roots: [{ path: "${tree.root}/projects", mode: rw }] }`,
      'programs:',
      '  cat: { allow_args_matching: ["*"] }',
      'tiers:',
      '  - { tool: fs.read, path: "**/private/**", tier: T2, why: private notes }',
      '',
    ].join('\n');
    runtime = await runtimeFor(tree, policy);
  });
  afterAll(async () => {
    await runtime.close();
    tree.dispose();
  });

  it('is a card for fs.read', () => {
    expect(runtime.judge({ tool: 'fs.read', args: { path: `${app}/private/notes.txt` } }).decision).toMatchObject({ decision: 'needs-approval', tier: 'T2' });
  });

  it('is not searched unasked: a search of the project finds the other file only', async () => {
    const found = await runtime.run({ tool: 'fs.search', args: { path: app, text: 'pin=' } });
    expect(found).toMatchObject({ decision: 'allow', executed: true });
    const text = JSON.stringify(found.output);
    expect(text).toContain('public.txt');
    expect(text).not.toContain('4711');
    expect(text).not.toContain('notes.txt');
  });

  it('is not edited unasked, and the refusal tells nothing of what it holds', async () => {
    for (const old_string of ['pin=47', 'absent text']) {
      const result = await runtime.run({ tool: 'fs.replace', args: { path: `${app}/private/notes.txt`, edits: [{ old_string, new_string: 'x' }] } });
      expect(result, old_string).toMatchObject({ decision: 'deny', code: 'EDIT_NOT_APPLIED', executed: false });
      expect(result.reasons.join(' ')).toMatch(/reading it needs a person/u);
    }
  });

  it('is not moved or copied where it could be read unasked, alone or in its folder (red team, session 33)', async () => {
    const moved = await runtime.run({ tool: 'fs.move', args: { from: `${app}/private/notes.txt`, to: `${app}/moved.txt` } });
    expect(moved).toMatchObject({ decision: 'deny', executed: false });
    expect(moved.reasons.join(' ')).toMatch(/would let it be read unasked/u);
    const folder = await runtime.run({ tool: 'fs.move', args: { from: `${app}/private`, to: `${app}/pub2` } });
    expect(folder).toMatchObject({ decision: 'deny', executed: false });
    expect(existsSync(`${app}/private/notes.txt`)).toBe(true);
    // Into such a place is fine: nothing becomes readable that was not.
    tree.file('projects/app/draft.txt', 'draft');
    expect(await runtime.run({ tool: 'fs.move', args: { from: `${app}/draft.txt`, to: `${app}/private/draft.txt` } })).toMatchObject({ decision: 'allow', executed: true });
  });

  it('is masked in a job that reads the tree', async () => {
    const ran = await runtime.run({ tool: 'exec.run', args: { program: 'cat', args: ['public.txt', 'private/notes.txt'], cwd: app } });
    expect(ran).toMatchObject({ decision: 'allow', executed: true, sandbox: 'bubblewrap' });
    expect(ran.stdout).toBe('pin=public\n');
    expect(ran.stdout).not.toContain('4711');
  });
});
