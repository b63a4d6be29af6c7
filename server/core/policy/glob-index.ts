import { firstMatch, type Glob } from './glob.js';

/**
 * deny_always globs indexed by what a match must hold in one path segment (issue 14: a decision's
 * cost must not grow with the policy). A glob made of plain characters (its `pieces` are known)
 * with a segment of literal text matches only paths with that exact segment; with a segment `*x`
 * only paths with a segment ending in `x`; with `x*` only a segment starting with `x`. `*` never
 * crosses a `/`, so these hold for picomatch too. Any other glob is tried for every path.
 *
 * The answer is exactly `firstMatch`'s: the first glob in policy order whose matcher accepts the
 * path; the index only decides which globs are worth asking.
 */
export interface GlobIndex<T extends Glob> {
  first(path: string): T | undefined;
}

type Key = { readonly kind: 'segment' | 'suffix' | 'prefix'; readonly text: string };

/** Below this many globs the literal prefilter of `firstMatch` is cheaper than any index. */
const INDEX_FROM = 64;

export function indexGlobs<T extends Glob>(globs: readonly T[], nocase: boolean): GlobIndex<T> {
  if (globs.length < INDEX_FROM) return { first: (path) => firstMatch(globs, path, nocase) };
  const bySegment = new Map<string, number[]>();
  const bySuffix = new Map<string, number[]>();
  const byPrefix = new Map<string, number[]>();
  const always: number[] = [];
  const maps = { segment: bySegment, suffix: bySuffix, prefix: byPrefix };
  globs.forEach((glob, i) => {
    const key = keyOf(glob, nocase);
    if (key === undefined) always.push(i);
    else push(maps[key.kind], key.text, i);
  });
  const fold = (s: string): string => (nocase ? s.toLowerCase() : s);
  return {
    first(path) {
      if (path === '') return undefined; // picomatch matches nothing against an empty string
      const candidates = new Set<number>(always);
      for (const raw of path.split('/')) {
        if (raw === '') continue;
        const segment = fold(raw);
        for (const i of bySegment.get(segment) ?? []) candidates.add(i);
        if (bySuffix.size > 0) for (let at = 0; at < segment.length; at++) for (const i of bySuffix.get(segment.slice(at)) ?? []) candidates.add(i);
        if (byPrefix.size > 0) for (let end = 1; end <= segment.length; end++) for (const i of byPrefix.get(segment.slice(0, end)) ?? []) candidates.add(i);
      }
      for (const i of [...candidates].sort((a, b) => a - b)) {
        const glob = globs[i];
        if (glob?.test(path) === true) return glob;
      }
      return undefined;
    },
  };
}

/** The most selective thing one segment of every match must be, or undefined (no promise). */
function keyOf(glob: Glob, nocase: boolean): Key | undefined {
  if (glob.pieces === null) return undefined;
  const segments = glob.base.split('/').filter((s) => s !== '' && s !== '**');
  const fold = (s: string): string => (nocase ? s.toLowerCase() : s);
  const literal = segments.filter((s) => !s.includes('*')).sort((a, b) => b.length - a.length)[0];
  if (literal !== undefined) return { kind: 'segment', text: fold(literal) };
  for (const s of segments) {
    const stars = s.split('*').length - 1;
    if (stars !== 1 || s.length < 2) continue;
    if (s.startsWith('*')) return { kind: 'suffix', text: fold(s.slice(1)) };
    if (s.endsWith('*')) return { kind: 'prefix', text: fold(s.slice(0, -1)) };
  }
  return undefined;
}

function push(map: Map<string, number[]>, key: string, i: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [i]);
  else list.push(i);
}
