import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempTree } from '../../tests/fixtures/temp-tree.js';
import { defaultCwd } from './default-cwd.js';

const view = (...paths: string[]): Parameters<typeof defaultCwd>[1] => ({ scopes: [{ name: 'projects', roots: paths.map((path) => ({ path, mode: 'rw' as const, exclude: [] })) }] });

describe('defaultCwd: exec_run runs in the host folder only when a scope holds it', () => {
  const tree = tempTree('oracle-default-cwd-');
  afterAll(() => {
    tree.dispose();
  });
  const projects = tree.dir('projects');
  const app = tree.dir('projects/app');

  it('is the host folder inside a root, or the root itself', () => {
    expect(defaultCwd(app, view(projects))).toBe(app);
    expect(defaultCwd(projects, view(projects))).toBe(projects);
  });
  it('is nothing outside every root, beside a root with a shared prefix, or for a root that does not exist', () => {
    const evil = tree.dir('projects-evil');
    expect(defaultCwd(evil, view(projects))).toBeUndefined();
    expect(defaultCwd(tree.root, view(projects))).toBeUndefined();
    expect(defaultCwd(app, view(join(tree.root, 'missing')))).toBeUndefined();
  });
  it('compares real paths: a root written through a link holds the folder it points to', () => {
    mkdirSync(join(tree.root, 'links'));
    symlinkSync(projects, join(tree.root, 'links', 'p'));
    expect(defaultCwd(app, view(join(tree.root, 'links', 'p')))).toBe(app);
  });
});
