import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LINUX } from '../paths/flavor.js';
import { withProjectRoot } from './add-root.js';
import { loadPolicy } from './load.js';

const shipped = readFileSync(new URL('../../../config/policy.yaml', import.meta.url), 'utf8');

describe('adding a project root to a policy file', () => {
  it('adds it to scopes.projects of the shipped policy, keeping its comments, and the result loads', () => {
    const added = withProjectRoot(shipped, '/work/my-app');
    if (!('text' in added)) throw new Error(added.error);
    expect(added.text).toContain('# ORACLE default policy');
    expect(added.text.split('\n').length).toBeGreaterThan(shipped.split('\n').length - 1);
    const loaded = loadPolicy(added.text, { flavor: LINUX, userHome: '/home/u' });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    expect(loaded.policy.scopes.find((s) => s.name === 'projects')?.roots.map((r) => [r.path, r.mode])).toContainEqual(['/work/my-app', 'rw']);
  });

  it('creates scopes.projects when the file has none, and refuses shapes it cannot extend', () => {
    const added = withProjectRoot('scopes:\n  notes: { roots: [{ path: /n, mode: ro }] }\n', '/p');
    if (!('text' in added)) throw new Error(added.error);
    const loaded = loadPolicy(added.text, { flavor: LINUX, userHome: '/' });
    expect(loaded.ok && loaded.policy.scopes.map((s) => s.name)).toEqual(['notes', 'projects']);
    expect(withProjectRoot('', '/p')).toHaveProperty('text');
    expect(withProjectRoot('- a\n', '/p')).toHaveProperty('error');
    expect(withProjectRoot('scopes: { projects: { roots: 3 } }\n', '/p')).toHaveProperty('error');
  });
});
