import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryReader, type MemoryNode } from '../../../tests/fixtures/memory-fs.js';
import { DARWIN, LINUX, WINDOWS } from './flavor.js';
import { lexPath, lexPathFully } from './lex.js';
import { resolveReal, resolveRealGenerally } from './resolve.js';

/**
 * lexPath's plain-POSIX shortcut and resolveReal's straight walk exist only for speed: on any
 * input they must answer exactly as the full algorithms, and the straight walk must ask the
 * reader for the same paths in the same order.
 */

const SEGMENTS = ['home', 'u', 'p', 'a.ts', '.', '..', '', 'x y', 'C:', 'c:', '~', '~u', 'a\\b', 'é', '*', '$x', '%', 'a:b', 'x'.repeat(256), '\u0000', '\u202e'];
const raw = fc.tuple(fc.constantFrom('', '/', '//', 'C:/', 'c:\\'), fc.array(fc.constantFrom(...SEGMENTS), { maxLength: 6 }), fc.boolean()).map(([root, segments, trailing]) => root + segments.join('/') + (trailing ? '/' : ''));
const cwd = fc.constantFrom(undefined, '/', '/w', '/home/u/p', '/a/./b', 'C:/', 'C:/w', 'rel', '/x/');

describe('lexPath shortcut', () => {
  for (const flavor of [LINUX, DARWIN, WINDOWS]) {
    it(`equals the full lexer (${flavor.kind}, case-insensitive: ${String(flavor.caseInsensitive)})`, () => {
      fc.assert(
        fc.property(raw, cwd, (text, at) => {
          expect(lexPath(text, { flavor, cwd: at })).toEqual(lexPathFully(text, { flavor, cwd: at }));
        }),
        { numRuns: 5000 },
      );
    });
  }
});

describe('resolveReal straight walk', () => {
  const names = ['a', 'b', 'c'];
  const node: fc.Arbitrary<MemoryNode> = fc.oneof(
    fc.constant<MemoryNode>('dir'),
    fc.constant<MemoryNode>('file'),
    fc.constant<MemoryNode>({ error: 'EACCES' }),
    fc.constantFrom(...names.map((n) => `/${n}`), '../b', 'c', '/a/b/c', '..', 'C:/x').map((target): MemoryNode => ({ symlink: target })),
  );
  const tree = fc.dictionary(fc.array(fc.constantFrom(...names), { minLength: 1, maxLength: 3 }).map((s) => `/${s.join('/')}`), node, { maxKeys: 6 });
  const path = fc.array(fc.constantFrom(...names, '.', '..', ''), { maxLength: 4 }).map((s) => `/${s.join('/')}`);

  it('answers as the general walk, reading the same entries in the same order', () => {
    fc.assert(
      fc.property(tree, path, (nodes, at) => {
        const fast = memoryReader(nodes);
        const slow = memoryReader(nodes);
        expect(resolveReal(at, fast, LINUX)).toEqual(resolveRealGenerally(at, slow, LINUX));
        expect(fast.calls).toEqual(slow.calls);
      }),
      { numRuns: 5000 },
    );
  });
});
