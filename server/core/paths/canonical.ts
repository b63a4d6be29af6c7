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

const fold = comparable;

/**
 * True when `path` is `root` or below it, compared segment by segment, so `/home/u/projects-evil`
 * is never under `/home/u/projects` (step 10).
 */
export function isUnder(path: string, root: string, flavor: PathFlavor): boolean {
  const p = splitCanonical(path);
  const r = splitCanonical(root);
  if (fold(p.root, flavor) !== fold(r.root, flavor)) return false;
  if (r.segments.length > p.segments.length) return false;
  return r.segments.every((segment, i) => fold(segment, flavor) === fold(p.segments[i] ?? '', flavor));
}

/** The part of `path` below `root`, `/`-joined; `''` when they are the same. Assumes isUnder. */
export function relativeTo(path: string, root: string): string {
  const depth = splitCanonical(root).segments.length;
  return splitCanonical(path).segments.slice(depth).join('/');
}
