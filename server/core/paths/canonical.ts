import { comparable, type PathFlavor } from './flavor.js';

/**
 * The one in-memory form of a canonical path: a root (`/` on POSIX, `C:/` on Windows, drive
 * letter upper-cased) and segments with no `.`, `..` or empty members. Its string form uses `/`
 * on every flavor, so globs and prefixes are matched the same way everywhere.
 */
export interface SplitPath {
  readonly root: string;
  readonly segments: readonly string[];
}

export function joinPath(path: SplitPath): string {
  return path.root + path.segments.join('/');
}

/** Splits a string that is already canonical (the output of `lexPath` or `resolveReal`). */
export function splitCanonical(path: string): SplitPath {
  const root = /^[A-Z]:\//.test(path) ? path.slice(0, 3) : '/';
  const rest = path.slice(root.length);
  return { root, segments: rest === '' ? [] : rest.split('/') };
}

/**
 * True when `path` is `root` or below it, on path-segment boundaries, so `/home/u/projects-evil`
 * is never under `/home/u/projects` (step 10). Both must be canonical.
 */
export function isUnder(path: string, root: string, flavor: PathFlavor): boolean {
  return isUnderComparable(comparable(path, flavor), comparable(root, flavor));
}

/**
 * isUnder for two canonical paths already in comparison form (`comparable`), without splitting:
 * a prefix that ends at a segment boundary. The same answer as comparing segment by segment,
 * because a canonical path is its root (`/` or `C:/`) and segments joined by `/`, and folding
 * (lower case, NFC) never makes or removes a `/`. Callers fold a root once and a path once.
 */
export function isUnderComparable(path: string, root: string): boolean {
  if (!path.startsWith(root)) return false;
  // `root` is a bare root (`/`, `C:/`), the path itself, or ends where a segment of the path ends.
  return root.endsWith('/') || path.length === root.length || path.charCodeAt(root.length) === SLASH;
}

const SLASH = 0x2f;

/** The part of `path` below `root`, `/`-joined; `''` when they are the same. Assumes isUnder. */
export function relativeTo(path: string, root: string): string {
  // Skip as many segments of `path` as `root` has: the two may differ in case or normal form,
  // so string lengths cannot be trusted, segment counts can.
  let depth = segmentCount(root);
  let at = rootLength(path);
  while (depth > 0) {
    const next = path.indexOf('/', at);
    if (next === -1) return '';
    at = next + 1;
    depth -= 1;
  }
  return path.slice(at);
}

/** How long the root of a canonical path is: 3 for `C:/`, else 1 (`/`), as splitCanonical reads it. */
export function rootLength(path: string): number {
  // /^[A-Z]:\//, without a regular expression: this runs for every path of every decision
  const drive = path.charCodeAt(0);
  return drive >= 0x41 && drive <= 0x5a && path.charCodeAt(1) === 0x3a && path.charCodeAt(2) === SLASH ? 3 : 1;
}

/**
 * True when `path` from `from` on is zero or more segments joined by single slashes, none empty,
 * `.` or `..`, none longer than `maxSegment`: then splitting, collapsing and joining it again
 * gives it back unchanged. Scans without allocating.
 */
export function hasPlainSegments(path: string, from: number, maxSegment: number): boolean {
  let start = from;
  for (let i = from; i <= path.length; i++) {
    if (i < path.length && path.charCodeAt(i) !== SLASH) continue;
    const length = i - start;
    if (i === path.length && length === 0 && start === from) return true; // no segments at all
    if (length === 0 || length > maxSegment) return false;
    if (path.charCodeAt(start) === DOT && (length === 1 || (length === 2 && path.charCodeAt(start + 1) === DOT))) return false;
    start = i + 1;
  }
  return true;
}

const DOT = 0x2e;

function segmentCount(path: string): number {
  const start = rootLength(path);
  if (path.length <= start) return 0;
  let count = 1;
  for (let i = path.indexOf('/', start); i !== -1; i = path.indexOf('/', i + 1)) count += 1;
  return count;
}
