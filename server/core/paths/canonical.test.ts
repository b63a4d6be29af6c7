import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isUnder, relativeTo, splitCanonical } from './canonical.js';
import { comparable, DARWIN, LINUX, WINDOWS, type PathFlavor } from './flavor.js';

/** The segment-by-segment definition of step 10 that isUnder's prefix comparison must equal. */
function underBySegments(path: string, root: string, flavor: PathFlavor): boolean {
  const p = splitCanonical(path);
  const r = splitCanonical(root);
  if (comparable(p.root, flavor) !== comparable(r.root, flavor)) return false;
  if (r.segments.length > p.segments.length) return false;
  return r.segments.every((segment, i) => comparable(segment, flavor) === comparable(p.segments[i] ?? '', flavor));
}

const SEGMENTS = ['home', 'Home', 'HOME', 'u', 'projects', 'projects-evil', 'proj', 'é', 'e\u0301', 'É', 'İ', 'i', 'ς', 'σ', 'Σ', 'a.b', 'x y'];
const canonical = fc.tuple(fc.constantFrom('/', 'C:/', 'D:/'), fc.array(fc.constantFrom(...SEGMENTS), { maxLength: 5 })).map(([root, segments]) => root + segments.join('/'));

describe('isUnder and relativeTo', () => {
  it('respects segment boundaries', () => {
    expect(isUnder('/home/u/projects-evil/x', '/home/u/projects', LINUX)).toBe(false);
    expect(isUnder('/home/u/projects/x', '/home/u/projects', LINUX)).toBe(true);
    expect(isUnder('/home/u/projects', '/home/u/projects', LINUX)).toBe(true);
    expect(isUnder('/x', '/', LINUX)).toBe(true);
    expect(isUnder('C:/Users/U/x', 'c:/users/u', WINDOWS)).toBe(true);
    expect(relativeTo('/home/u/projects/a/b', '/home/u/projects')).toBe('a/b');
    expect(relativeTo('/home/u', '/home/u')).toBe('');
    expect(relativeTo('C:/Users/x', 'C:/')).toBe('Users/x');
  });

  for (const flavor of [LINUX, DARWIN, WINDOWS]) {
    it(`agree with the segment-by-segment definition (${flavor.kind}, case-insensitive: ${String(flavor.caseInsensitive)}, NFC: ${String(flavor.normalizationInsensitive)})`, () => {
      fc.assert(
        fc.property(canonical, canonical, (path, root) => {
          const under = underBySegments(path, root, flavor);
          expect(isUnder(path, root, flavor)).toBe(under);
          if (under) expect(relativeTo(path, root)).toBe(splitCanonical(path).segments.slice(splitCanonical(root).segments.length).join('/'));
        }),
        { numRuns: 3000 },
      );
    });
  }
});
