import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileGlob, firstMatch, type GlobOptions } from './glob.js';

/**
 * firstMatch's literal prefilter is only a shortcut: it must give exactly the glob that trying
 * every matcher in order gives, for the shipped deny_always list and for odd patterns alike.
 */

const SHIPPED = [...readFileSync(join(import.meta.dirname, '..', '..', '..', 'config', 'policy.yaml'), 'utf8').matchAll(/^\s+- "([^"]+)"$/gmu)].map((m) => m[1] ?? '');
const ODD = ['.git', 'node_modules', '*.log', 'a/b', 'C:/Windows/**', 'C:/Program Files (x86)/**', 'x?y', '[ab]c', '{p,q}.txt', '**/Straße/**', '**/ΣΑΣ', 'K*', '/opt/x y/**', '/./x', '/.', './', 'a/../b', '**/***a.b', '****...'];
const SEGMENTS = ['x', 'aXb', '._b', 'home', 'u', 'projects', 'app', '.ssh', 'id_rsa', 'id_rsa.pub', 'x.env', '.env', '.env.local', 'a.PEM', '.Git', '.git', 'hooks', 'etc', 'usr', 'lib', 'C:', 'Windows', 'Program Files (x86)', 'AppData', 'Library', 'Keychains', 'Straße', 'STRASSE', 'σας', 'ΣΑΣ', 'K', 'xy', 'x y', 'node_modules', 'p.txt', 'bc', '', '..'];

function reference<T extends { test: (path: string) => boolean }>(globs: readonly T[], path: string): T | undefined {
  return globs.find((g) => g.test(path));
}

describe('firstMatch', () => {
  it('never lets the prefilter skip a pattern picomatch rewrites (review counterexamples)', () => {
    const options = { dot: true, nocase: false, windows: false } as const;
    // An exclude written `/./secrets` means `secrets` under the root: no `.` needs to be in the path.
    expect(firstMatch([compileGlob('/./secrets', options, true)], 'secrets/db', false)?.pattern).toBe('/./secrets');
    expect(firstMatch([compileGlob('/.', options, true)], 'src/main', false)?.pattern).toBe('/.');
    // After `***` picomatch lets `.` match any character: the matcher decides, as before.
    const stars = compileGlob('**/***credentials.json', options);
    expect(firstMatch([stars], '/home/u/app/credentialsXjson', false)).toBe(reference([stars], '/home/u/app/credentialsXjson'));
  });

  it('finds the shipped deny_always patterns it should', () => {
    expect(SHIPPED.length).toBeGreaterThan(30);
    const globs = SHIPPED.map((p) => compileGlob(p, { dot: true, nocase: false, windows: false }));
    expect(firstMatch(globs, '/home/u/.ssh/id_rsa', false)?.pattern).toBe('**/.ssh/**');
    expect(firstMatch(globs, '/home/u/projects/app/.env', false)?.pattern).toBe('**/*.env');
    expect(firstMatch(globs, '/home/u/projects/app/src/index.ts', false)).toBeUndefined();
    expect(firstMatch(globs, '', false)).toBeUndefined();
  });

  it('keeps no pieces for patterns beyond `*` and plain characters', () => {
    const options: GlobOptions = { dot: true, nocase: false, windows: false };
    expect(compileGlob('**/.ssh/**', options).pieces).toEqual(['.ssh']);
    expect(compileGlob('C:/Program Files (x86)/**', options).pieces).toBeNull();
    expect(compileGlob('**/ΣΑΣ', options).pieces).toBeNull();
    expect(compileGlob('x?y', options).pieces).toBeNull();
    expect(compileGlob('/etc/**', options).prefix).toBe('/etc');
    expect(compileGlob('**/.ssh/**', options).prefix).toBeNull();
    expect(compileGlob('C:/Windows/**', { ...options, nocase: true }).prefix).toBe('c:/windows');
  });

  for (const nocase of [false, true]) {
    it(`answers exactly as every matcher in order (nocase: ${String(nocase)})`, () => {
      const options: GlobOptions = { dot: true, nocase, windows: false };
      const patterns = fc.array(fc.constantFrom(...SHIPPED, ...ODD), { minLength: 1, maxLength: 12 });
      const path = fc.tuple(fc.constantFrom('/', 'C:/', ''), fc.array(fc.constantFrom(...SEGMENTS), { maxLength: 6 })).map(([root, segments]) => root + segments.join('/'));
      fc.assert(
        fc.property(patterns, path, fc.boolean(), (list, input, relative) => {
          const globs = list.map((p) => compileGlob(p, options, relative));
          expect(firstMatch(globs, input, nocase)).toBe(reference(globs, input));
        }),
        { numRuns: 3000 },
      );
    });
  }
});
