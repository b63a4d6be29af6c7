import { trimEnd } from '../../../shared/trim-end.js';
import { matchSegment, type SegmentToken } from '../paths/wildcard.js';
/**
 * What an unquoted glob in a Claude Code Bash command can expand to, so each path is judged
 * instead of a person being asked about every `cat src/*.ts` (SPEC §11). The shell options that
 * change globbing live in the user's shell snapshot, which the hook cannot see (bash's dotglob,
 * nocaseglob, globstar, globskipdots; zsh's GLOB_DOTS, NO_CASE_GLOB, EXTENDED_GLOB), so the
 * expansion is a superset of every reading: case is ignored (as the C library folds it: a name's
 * character beyond ASCII may stand for any letter), a bracket expression matches any one
 * character, a `**` segment descends any number of folders, a zsh `^x` or `x#` matches any name
 * after its literal start, and `.` and `..` are candidates. Each match says whether every reading
 * takes it (`sure`) and whether only a dotglob reading does (`hidden`). Pure: the folder reader
 * is injected (server/adapters/glob-reader.ts).
 */

export interface DirEntry {
  readonly name: string;
  /** A folder, or a link to one (followed). */
  readonly dir: boolean;
  readonly link: boolean;
}

/**
 * A folder's entries (no `.` or `..`), undefined when it cannot be listed, or why its names
 * cannot be judged (one that is not UTF-8 has no faithful string).
 */
export type ReadDir = (path: string) => readonly DirEntry[] | undefined | { readonly unjudged: string };

export interface GlobMatch {
  /** As the shell writes it: relative to the working directory unless the pattern is absolute. */
  readonly path: string;
  /** Every reading of the pattern matches it (case as written, no dotglob, no globstar). */
  readonly sure: boolean;
  /** Only a reading that lets a wildcard match a leading dot takes it (dotglob, GLOB_DOTS). */
  readonly hidden: boolean;
}

export type Expansion = { readonly ok: true; readonly matches: readonly GlobMatch[] } | { readonly ok: false; readonly reason: string };

/** Matches kept, and folder entries looked at, before the expansion is a person's call. */
export const MAX_GLOB_MATCHES = 1_000;
export const MAX_GLOB_VISITS = 5_000;

const NON_ASCII = /\P{ASCII}/u;
const ASCII_LETTER = /^[A-Za-z]$/u;

const DOTS: readonly DirEntry[] = [
  { name: '.', dir: true, link: false },
  { name: '..', dir: true, link: false },
];

interface Partial {
  readonly path: string;
  readonly sure: boolean;
  readonly hidden: boolean;
}

/**
 * `pattern` has every quoted character escaped by a backslash (bash-ast.ts shellWord), so only
 * unescaped `*`, `?`, `[`, `^` and `#` are special (a glob with an unquoted `~`, which zsh reads
 * as an exclusion and bash as a name, never gets here).
 */
export function expandGlob(pattern: string, cwd: string, readDir: ReadDir): Expansion {
  const absolute = pattern.startsWith('/');
  // `*/` matches folders only (and links to them).
  const foldersOnly = pattern.length > 1 && pattern.endsWith('/');
  const segments = splitSegments(pattern).filter((s, i) => !(s.text === '' && (i > 0 || absolute)));
  const bad = segments.find((s) => s.kind !== 'literal' && /\*\*/u.test(s.text) && s.text !== '**');
  if (bad !== undefined) return { ok: false, reason: `\`${pattern}\` has \`${bad.text}\`, which zsh reads as a search that may follow links (\`***\`, \`**.x\`)` };
  const brackets = bracketsDisagree(pattern);
  if (brackets !== undefined) return { ok: false, reason: `\`${pattern}\` ${brackets}` };
  // Shells fold case with the C library (towlower: \`İ\` is \`i\`), not Unicode's simple folding.
  if (NON_ASCII.test(pattern)) return { ok: false, reason: `\`${pattern}\` has a character beyond ASCII, which shells fold and match by locale` };
  let current: Partial[] = [{ path: absolute ? '/' : '', sure: true, hidden: false }];
  let visits = 0;
  const at = (prefix: string): string => (prefix === '' ? cwd : prefix.startsWith('/') ? prefix : `${trimEnd(cwd, '/')}/${prefix}`);
  const join = (prefix: string, name: string): string => (prefix === '' ? name : prefix.endsWith('/') ? `${prefix}${name}` : `${prefix}/${name}`);
  let unjudged: string | undefined;
  /** A folder's entries; one whose names cannot be judged ends the expansion (checked after each list). */
  const list = (prefix: string): readonly DirEntry[] | undefined => {
    const entries = readDir(at(prefix));
    if (entries !== undefined && 'unjudged' in entries) {
      unjudged = entries.unjudged;
      return [];
    }
    if (entries === undefined) return undefined;
    visits += entries.length;
    return entries;
  };
  const tooMany = (): Expansion => ({ ok: false, reason: `\`${pattern}\` reaches more than ${String(MAX_GLOB_VISITS)} folder entries` });
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1 && !foldersOnly;
    const next: Partial[] = [];
    if (segment.kind === 'literal' && (segment.literal === '.' || segment.literal === '..')) {
      for (const p of current) next.push({ ...p, path: join(p.path, segment.literal) });
    } else if (segment.kind === 'literal') {
      // No wildcard: the name as written, and (zsh without CASE_GLOB) the same name in another case.
      for (const p of current) {
        const entries = list(p.path);
        if (unjudged !== undefined) return { ok: false, reason: unjudged };
        if (visits > MAX_GLOB_VISITS) return tooMany();
        if (entries === undefined) {
          next.push({ ...p, path: join(p.path, segment.literal) });
          continue;
        }
        for (const e of entries) if (foldsTo(e.name, segment.literal) && (last || e.dir)) next.push({ path: join(p.path, e.name), sure: p.sure && e.name === segment.literal, hidden: p.hidden });
      }
    } else if (segment.text === '**') {
      // Zero or more folders (globstar, zsh); only one folder level is every reading's (`*`).
      const stack: { readonly at: Partial; readonly depth: number }[] = current.map((p) => ({ at: p, depth: 0 }));
      while (stack.length > 0) {
        const item = stack.pop();
        if (item === undefined) break;
        const { at: p, depth } = item;
        if (index < segments.length - 1 || foldersOnly) next.push({ ...p, sure: p.sure && depth === 1 });
        const entries = list(p.path) ?? [];
        if (unjudged !== undefined) return { ok: false, reason: unjudged };
        for (const e of entries) {
          if (visits > MAX_GLOB_VISITS) return tooMany();
          const hidden = p.hidden || e.name.startsWith('.');
          const child: Partial = { path: join(p.path, e.name), sure: p.sure && !hidden, hidden };
          if (index === segments.length - 1 && (last || e.dir)) next.push({ ...child, sure: child.sure && depth === 0 });
          if (e.dir && e.link) return { ok: false, reason: `\`${pattern}\` meets the link \`${child.path}\` to a folder, which some shells' \`**\` follow` };
          if (e.dir) stack.push({ at: child, depth: depth + 1 });
        }
      }
    } else {
      const loose = segmentMatcher(segment.text, 'superset');
      const strict = segment.kind === 'glob' ? segmentMatcher(segment.text, 'strict') : undefined;
      const dotLiteral = segment.literal.startsWith('.');
      for (const p of current) {
        // `.` and `..` match only a pattern that starts with a dot, in bash before 5.2 (globskipdots).
        const entries: readonly DirEntry[] = [...(list(p.path) ?? []), ...(dotLiteral ? DOTS : [])];
        if (unjudged !== undefined) return { ok: false, reason: unjudged };
        if (visits > MAX_GLOB_VISITS) return tooMany();
        for (const e of entries) {
          if (!loose(e.name) || !(last || e.dir)) continue;
          const hidden = p.hidden || (e.name.startsWith('.') && !dotLiteral) || e.name === '.' || e.name === '..';
          next.push({ path: join(p.path, e.name), sure: p.sure && !hidden && strict !== undefined && strict(e.name), hidden });
        }
      }
    }
    if (next.length > MAX_GLOB_MATCHES) return { ok: false, reason: `\`${pattern}\` can match more than ${String(MAX_GLOB_MATCHES)} paths` };
    current = next;
  }
  const byPath = new Map<string, GlobMatch>();
  for (const found of current) {
    if (found.path === '' || found.path === '/') continue;
    // The shell keeps the pattern's final `/` (`link/` follows the link for rm, cp and ls).
    const m = foldersOnly ? { ...found, path: `${found.path}/` } : found;
    const seen = byPath.get(m.path);
    byPath.set(m.path, seen === undefined ? m : { path: m.path, sure: seen.sure || m.sure, hidden: seen.hidden && m.hidden });
  }
  return { ok: true, matches: [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) };
}

interface Segment {
  /** The segment as written, escapes kept (for matching). */
  readonly text: string;
  /** The segment with escapes removed. */
  readonly literal: string;
  /** `glob`: only `*`, `?` and brackets; `zsh`: also zsh's `^` or `#`, never sure. */
  readonly kind: 'literal' | 'glob' | 'zsh';
}

function splitSegments(pattern: string): Segment[] {
  const out: Segment[] = [];
  let text = '';
  let literal = '';
  let kind: Segment['kind'] = 'literal';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern.charAt(i);
    if (c === '\\' && i + 1 < pattern.length) {
      text += c + pattern.charAt(i + 1);
      literal += pattern.charAt(i + 1);
      i++;
      continue;
    }
    if (c === '/') {
      out.push({ text, literal, kind });
      text = '';
      literal = '';
      kind = 'literal';
      continue;
    }
    if (c === '^' || c === '#') kind = 'zsh';
    else if ((c === '*' || c === '?' || (c === '[' && closingBracket(pattern, i) > 0)) && kind === 'literal') kind = 'glob';
    text += c;
    literal += c;
  }
  out.push({ text, literal, kind });
  return out;
}

/**
 * Brackets bash and zsh close in different places: zsh closes `[!]` and `[^]` at once (any one
 * character; bash takes that `]` as a member), and zsh's brackets may hold a `/` (`.en[v/]` is
 * `.env` there; bash leaves a `[` with a `/` before its `]` as written). Either makes a word two
 * different patterns, so it is a person's call.
 */
function bracketsDisagree(pattern: string): string | undefined {
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern.charAt(i);
    if (c === '\\') {
      i++;
      continue;
    }
    if (c !== '[') continue;
    if (/^[!^]\]/u.test(pattern.slice(i + 1, i + 3))) return `has \`${pattern.slice(i, i + 3)}\`, which zsh closes at once and bash does not`;
    const close = closingBracket(pattern, i);
    if (close > 0) i = close;
    else if (pattern.includes(']', i + 1)) return 'has a `[` whose `]` bash and zsh may find in different places (zsh lets a bracket hold a `/`)';
  }
  return undefined;
}

/** Where the bracket expression opened at `open` closes (a `]` right after `[`, `[!` or `[^` is a member, as is one inside `[:class:]`), or -1. */
function closingBracket(text: string, open: number): number {
  let i = open + 1;
  if (text.charAt(i) === '!' || text.charAt(i) === '^') i++;
  if (text.charAt(i) === ']') i++;
  for (; i < text.length; i++) {
    const c = text.charAt(i);
    if (c === '/') return -1;
    if (c === '\\') i++;
    else if (c === ']') return i;
    else if (c === '[' && ':=.'.includes(text.charAt(i + 1)) && text.charAt(i + 1) !== '') {
      // `[:upper:]`, `[=a=]`, `[.x.]` hold a `]` that does not close the expression.
      const end = text.indexOf(`${text.charAt(i + 1)}]`, i + 2);
      if (end >= 0) i = end + 1;
    }
  }
  return -1;
}

/**
 * One segment as a test on a name. `superset`: `*` any run, `?` and `[…]` at most one character,
 * zsh's `#` any number of the atom before it and its `^` anything from there on, an ASCII letter
 * in either case or as any character beyond ASCII. `strict`: what every shell agrees on, case as
 * written, and no bracket expression (those never count as sure).
 */
function segmentMatcher(text: string, reading: 'superset' | 'strict'): (name: string) => boolean {
  const tokens: SegmentToken[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (c === '\\' && i + 1 < text.length) {
      i++;
      const char = codePointAt(text, i);
      tokens.push({ kind: 'one', test: literalTest(char, reading) });
      i += char.length - 1;
    } else if (c === '*') tokens.push({ kind: 'star' });
    // In the C locale `?` and a bracket match one byte, elsewhere one character: the superset
    // takes up to one character for each (so a run covers a character of several bytes), the
    // strict reading one ASCII character.
    else if (c === '?') tokens.push(reading === 'superset' ? { kind: 'optional' } : { kind: 'one', test: (x) => x.charCodeAt(0) < 0x80 });
    else if (c === '[' && closingBracket(text, i) > 0) {
      if (reading === 'strict') return () => false;
      tokens.push({ kind: 'optional' });
      i = closingBracket(text, i);
    } else if (c === '#') {
      // zsh: `x#` is any number of x, `x##` one or more: the atom before may repeat or be absent.
      const last = tokens.at(-1);
      if (last?.kind === 'one') tokens[tokens.length - 1] = { kind: 'repeat', test: last.test };
      else if (last?.kind === 'optional') tokens[tokens.length - 1] = { kind: 'star' };
    } else if (c === '^') {
      // zsh: `^x` is anything but x: anything from here on.
      tokens.push({ kind: 'rest' });
      break;
    } else {
      const char = codePointAt(text, i);
      tokens.push({ kind: 'one', test: literalTest(char, reading) });
      i += char.length - 1;
    }
  }
  // Matched by a table over (piece, character), at most pieces × characters steps, where a regular
  // expression built from the same glob backtracked exponentially (`*[x]*[x]*[x]…Z` against
  // ordinary names took seconds: red team, session 31).
  return (name) => matchSegment(tokens, name, { steps: Number.POSITIVE_INFINITY }) === true;
}

/** One literal character of a pattern as a test; in the superset, an ASCII letter in either case or any character beyond ASCII (see foldsTo). */
function literalTest(c: string, reading: 'superset' | 'strict'): (char: string) => boolean {
  if (reading === 'superset' && ASCII_LETTER.test(c)) {
    const lower = c.toLowerCase();
    const upper = c.toUpperCase();
    return (x) => x === lower || x === upper || NON_ASCII.test(x);
  }
  return (x) => x === c;
}

/**
 * Whether a name may be `literal` in another case: shells fold with the C library's towlower and
 * towupper, one character for one, and some characters beyond ASCII fold to an ASCII letter
 * (glibc: `İ` to `i`, the Kelvin sign to `k`), so any of them may stand for a letter.
 */
function foldsTo(name: string, literal: string): boolean {
  // Code points, as the C library compares them (a surrogate pair is one character).
  const a = Array.from(name);
  const b = Array.from(literal);
  return a.length === b.length && a.every((c, i) => sameLetter(c, b[i] ?? ''));
}

function sameLetter(c: string, letter: string): boolean {
  return c.toLowerCase() === letter.toLowerCase() || (ASCII_LETTER.test(letter) && NON_ASCII.test(c));
}

/** The whole character at `i` (both halves of a surrogate pair). */
function codePointAt(text: string, i: number): string {
  return String.fromCodePoint(text.codePointAt(i) ?? 0).length === 2 ? text.slice(i, i + 2) : text.charAt(i);
}

