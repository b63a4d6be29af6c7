import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempTree, type TempTree } from '../../tests/fixtures/temp-tree.js';
import { LINUX } from '../core/paths/flavor.js';
import { loadPolicy } from '../core/policy/load.js';
import { cachedPolicyLoader } from './policy-cache.js';

const options = { flavor: LINUX, userHome: '/home/u' };
const shipped = readFileSync(new URL('../../config/policy.yaml', import.meta.url), 'utf8');

describe('the headless hook policy cache', () => {
  let tree: TempTree;
  let dir = '';
  beforeEach(() => {
    tree = tempTree('oracle-policy-cache-');
    dir = tree.root;
  });
  afterEach(() => {
    tree.dispose();
  });
  const file = () => join(dir, 'policy-cache.json');

  it('answers a second load from the file, equal to a fresh load', () => {
    const fresh = loadPolicy(shipped, options);
    expect(cachedPolicyLoader(dir, 'build-1')(shipped, options)).toEqual(fresh);
    const kept = readFileSync(file(), 'utf8');
    // The entry is used: a policy built from the kept JSON, not from the text (which is gone here).
    const entry = JSON.parse(kept) as { key: string; digest: string; body: string };
    const body = JSON.parse(entry.body) as { policy: { programDefault: string } };
    body.policy.programDefault = 'deny';
    const edited = JSON.stringify(body);
    writeFileSync(file(), JSON.stringify({ ...entry, digest: createHash('sha256').update(edited).digest('hex'), body: edited }));
    const again = cachedPolicyLoader(dir, 'build-1')(shipped, options);
    expect(again.ok && again.policy.programDefault).toBe('deny');
    expect(fresh.ok && fresh.policy.programDefault).toBe('confirm');
  });

  it('loads afresh when the text, the user home, or the build changed', () => {
    cachedPolicyLoader(dir, 'build-1')(shipped, options);
    const edited = shipped.replace('default: confirm', 'default: deny');
    expect(edited).not.toBe(shipped);
    for (const [text, opts, build] of [
      [edited, options, 'build-1'],
      [shipped, { ...options, userHome: '/home/other' }, 'build-1'],
      [shipped, options, 'build-2'],
    ] as const) {
      expect(cachedPolicyLoader(dir, build)(text, opts)).toEqual(loadPolicy(text, opts));
    }
  });

  it('reads a torn or corrupt file as a miss and replaces it', () => {
    cachedPolicyLoader(dir, 'b')(shipped, options);
    const whole = readFileSync(file(), 'utf8');
    const flipped = whole.replace('rw', 'ro'); // the body changed under its digest
    expect(flipped).not.toBe(whole);
    for (const broken of [whole.slice(0, whole.length / 2), flipped, 'null', '[]', '']) {
      writeFileSync(file(), broken);
      expect(cachedPolicyLoader(dir, 'b')(shipped, options)).toEqual(loadPolicy(shipped, options));
      expect(readFileSync(file(), 'utf8')).toBe(whole);
    }
  });

  it('never keeps an invalid policy: its errors stay exact', () => {
    const invalid = 'version: 1\nscopes: {}\nprogramz: {}\n';
    const first = cachedPolicyLoader(dir, 'b')(invalid, options);
    expect(first.ok).toBe(false);
    expect(() => readFileSync(file())).toThrow();
    expect(cachedPolicyLoader(dir, 'b')(invalid, options)).toEqual(first);
  });

  it('answers when the directory cannot be written (a cost, not a failure)', () => {
    expect(cachedPolicyLoader(join(dir, 'missing', 'deeper'), 'b')(shipped, options)).toEqual(loadPolicy(shipped, options));
  });
});
