import picomatch from 'picomatch';
import { trimEnd } from '../../../shared/trim-end.js';

export type GlobOptions = { readonly dot: boolean; readonly nocase: boolean; readonly windows: false };

/** One compiled policy glob: picomatch's matcher, and the literal text every match contains. */
export interface Glob {
  readonly pattern: string;
  /** The glob the pattern stands for (`globBase`), before `/**` is added. */
  readonly base: string;
  readonly test: (path: string) => boolean;
  /**
   * Literal pieces (lower-cased under `nocase`) that every matching path contains, or null when
   * the pattern uses more than `*`, `**` and plain characters and no piece can be promised.
   */
  readonly pieces: readonly string[] | null;
  /** For a pattern anchored at the root, the literal text every match starts with; else null. */
  readonly prefix: string | null;
}

/**
 * Policy globs, the way people write them (SPEC §3 writes `.ssh`, `.git/hooks`, `*.env`):
 * - an absolute pattern matches from the root; any other pattern matches at any depth
 *   (`.ssh` means `** /.ssh`), except an exclude containing a `/`, which is anchored at its root
 *   as in .gitignore;
 * - whatever a pattern matches, everything inside it matches too: a denied directory denies its
 *   contents;
 * - parentheses are literal (`C:/Program Files (x86)`), and a leading `!` is not a negation.
 */
export function compileGlob(pattern: string, options: GlobOptions, relativeToRoot = false): Glob {
  // Parentheses are literal: escaped for picomatch, which would read `+(x)` as an extended glob.
  const base = globBase(pattern, relativeToRoot).replace(/[()]/gu, '\\$&');
  // Compiled on first use: a decision tries only the globs its path's index bucket holds, and a
  // process that judges one hook call would otherwise build a regex for every pattern of the
  // policy. (load.ts already checked that each pattern compiles; a throw here denies.)
  let matcher: ((path: string) => boolean) | undefined;
  const test = (path: string): boolean => (matcher ??= picomatch(base.endsWith('/**') ? [base] : [base, `${base}/**`], { ...options, nonegate: true }))(path);
  const pieces = literalPieces(base, options.nocase);
  return { pattern, base, test, pieces, prefix: pieces === null ? null : literalPrefix(base, options.nocase) };
}

/**
 * The glob a policy pattern stands for, before `/**` is added and before parentheses are
 * escaped: `.ssh` → `** /.ssh`, `./a/` → `a`, `/etc/**` stays. Exported for translators (the
 * Cedar reference in bench/) that must read patterns exactly as the gate does.
 */
export function globBase(pattern: string, relativeToRoot = false): string {
  const p = trimEnd(pattern.normalize('NFC').replace(/^(?:\.\/)+/u, ''), '/');
  if (relativeToRoot) return p.includes('/') ? p.replace(/^\/+/u, '') : `**/${p}`;
  if (/^(?:\/|[A-Za-z]:\/)/u.test(p) || p.startsWith('**/')) return p;
  return `**/${p}`;
}

/**
 * What a match of `base` must contain: in a pattern made only of ASCII letters, digits, `.`, `_`,
 * `-`, space, `:`, `/` and `*`, picomatch matches every other character literally, so each run
 * between `/` and `*` appears in any path it matches (and in `base/**` too). Anything richer
 * (`?`, brackets, braces, escapes, extglobs, non-ASCII) gets null: no shortcut, always the matcher.
 * Under `nocase` the pieces are lower-cased; they are ASCII, so `path.toLowerCase()` keeps them.
 */
/**
 * `/etc/**` → `/etc`: an absolute pattern (picomatch anchors it at the start) begins with the
 * text before its first `*`. Only for patterns whose pieces are known (plain characters).
 */
function literalPrefix(base: string, nocase: boolean): string | null {
  if (!/^(?:\/|[A-Za-z]:\/)/u.test(base)) return null;
  const star = base.indexOf('*');
  const prefix = trimEnd(star === -1 ? base : base.slice(0, star), '/');
  if (prefix === '') return null;
  return nocase ? prefix.toLowerCase() : prefix;
}

function literalPieces(base: string, nocase: boolean): string[] | null {
  if (!/^[A-Za-z0-9._ :/*-]*$/u.test(base)) return null;
  // picomatch rewrites these before matching, so their text is not a promise: a `.` or `..`
  // segment (`/./secrets` matches `secrets`) and three or more stars (after `***` a `.` matches
  // any character). Such patterns always go to the matcher.
  if (/\*{3,}/u.test(base) || base.split('/').some((segment) => segment === '.' || segment === '..')) return null;
  const pieces = base.split(/[/*]+/u).filter((piece) => piece !== '');
  return nocase ? pieces.map((piece) => piece.toLowerCase()) : pieces;
}

/**
 * Globs tried in order, first match wins, with a literal prefilter in front of the regular
 * expressions: a path without a pattern's pieces cannot match it, so most paths skip most
 * patterns. The answer is exactly the first glob whose matcher accepts the path.
 */
export function firstMatch<T extends Glob>(globs: readonly T[], path: string, nocase: boolean): T | undefined {
  if (path === '') return undefined; // picomatch matches nothing against an empty string
  const haystack = nocase ? path.toLowerCase() : path;
  for (let i = 0; i < globs.length; i++) {
    const glob = globs[i];
    if (glob === undefined) continue;
    if (glob.prefix !== null && !haystack.startsWith(glob.prefix)) continue;
    if (glob.pieces !== null && !containsAll(haystack, glob.pieces)) continue;
    if (glob.test(path)) return glob;
  }
  return undefined;
}

function containsAll(haystack: string, pieces: readonly string[]): boolean {
  for (let i = 0; i < pieces.length; i++) if (!haystack.includes(pieces[i] ?? '')) return false;
  return true;
}
